import { categoriesOf } from "../events/append-rules.js";
import type { Envelope } from "../events/schemas.js";
import { BoundedLru } from "./bounded-lru.js";
import type { EventStore } from "./store/event-store.js";
import type { ViewStore } from "./store/view-store.js";

/** What the append path asks of an incident's casualty categories, for the cap on them. */
export interface CategoryCount {
  /** The incident's categories at `version` (the head an append is about to extend). */
  at(incidentId: string, version: number): Promise<ReadonlySet<string>>;
  /** Told of each commit this process stored: `from` was the head it extended, `to` its last version. */
  committed(incidentId: string, from: number, to: number, envelopes: readonly Envelope[]): void;
}

interface Known {
  version: number;
  categories: Set<string>;
}

/**
 * An incident's casualty categories at a version: the projected state's (one read of the view,
 * which holds every category ever reported), and those of the reports recorded after it, when
 * the view lags. Categories are never removed (a retracted report's category keeps its count of
 * reports), so the set only grows, and a set known at one version is extended by the commits
 * after it: a writer that keeps appending to an incident reads its view once, not once an append.
 */
export function incidentCategories(events: () => EventStore, views: ViewStore): CategoryCount {
  const known = new BoundedLru<string, Known>(1_000);

  async function read(incidentId: string, version: number): Promise<Known> {
    // Before its first event an incident has no view and no category: nothing to read.
    if (version === 0) return { version: 0, categories: new Set() };
    const state = await views.getState(incidentId);
    return {
      version: Math.min(state?.version ?? 0, version),
      categories: new Set(Object.keys(state?.casualties ?? {})),
    };
  }

  return {
    async at(incidentId, version) {
      const remembered = known.get(incidentId);
      const from = remembered && remembered.version <= version ? remembered : await read(incidentId, version);
      const categories = new Set(from.categories);
      if (from.version < version)
        for (const event of await events().eventsBetween(incidentId, from.version, version))
          if (event.type === "CasualtiesReported")
            for (const category of Object.keys(event.data.figures)) categories.add(category);
      known.set(incidentId, { version, categories });
      return categories;
    },
    committed(incidentId, from, to, envelopes) {
      const remembered = known.get(incidentId);
      if (remembered?.version !== from) return;
      known.set(incidentId, {
        version: to,
        categories: new Set([...remembered.categories, ...categoriesOf(envelopes)]),
      });
    },
  };
}
