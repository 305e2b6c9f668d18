import type { Attribution } from "./schemas.js";
import type { CategoryState, IncidentState } from "./summary.js";

/**
 * A fold state as it is stored: each (category, source) pair's rows name their attribution and
 * publisher by number, from tables held once. A source reporting 50 categories would otherwise
 * repeat its name, role and publisher 50 times, and an incident with many sources outgrow a
 * stored view item; read back, the state is the same as before it was packed.
 */
interface PackedTables {
  attributions: Attribution[];
  publishers: string[];
}

type Packed = IncidentState & { tables?: PackedTables };

export function compactState(state: IncidentState): Packed {
  const attributions: Attribution[] = [];
  const publishers: string[] = [];
  const byAttribution = new Map<string, number>();
  const byPublisher = new Map<string, number>();
  const attribution = (a: Attribution) => {
    const key = JSON.stringify(a);
    let n = byAttribution.get(key);
    if (n === undefined) {
      n = attributions.push(a) - 1;
      byAttribution.set(key, n);
    }
    return n;
  };
  const publisher = (p: string) => {
    let n = byPublisher.get(p);
    if (n === undefined) {
      n = publishers.push(p) - 1;
      byPublisher.set(p, n);
    }
    return n;
  };
  const casualties: Record<string, unknown> = {};
  for (const [category, entry] of Object.entries(state.casualties)) {
    const sources: Record<string, unknown> = {};
    for (const [key, kept] of Object.entries(entry.sources))
      Object.defineProperty(sources, key, {
        enumerable: true,
        value: {
          ...kept,
          recent: kept.recent.map((r) => ({
            ...r,
            attributedTo: attribution(r.attributedTo),
            publisher: publisher(r.publisher),
          })),
          marks: kept.marks.map((m) => ({ ...m, publisher: publisher(m.publisher) })),
        },
      });
    Object.defineProperty(casualties, category, { enumerable: true, value: { ...entry, sources } });
  }
  return {
    ...state,
    casualties: casualties as IncidentState["casualties"],
    tables: { attributions, publishers },
  };
}

/** The state a packed one stands for; a state stored before packing existed is returned as it is. */
export function expandState(packed: Packed): IncidentState {
  const { tables, ...state } = packed;
  if (!tables) return state;
  const attribution = (n: unknown) => tables.attributions[n as number] as Attribution;
  const publisher = (n: unknown) => tables.publishers[n as number] as string;
  for (const entry of Object.values(state.casualties) as CategoryState[])
    for (const kept of Object.values(entry.sources)) {
      for (const r of kept.recent) {
        r.attributedTo = attribution(r.attributedTo);
        r.publisher = publisher(r.publisher);
      }
      for (const m of kept.marks) m.publisher = publisher(m.publisher);
    }
  return state;
}
