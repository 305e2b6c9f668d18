import { sourceKey } from "../../../events/source-key.js";
import type { StoredEvent } from "../../../events/stored-event.js";
import type { Summary } from "../../../events/summarize.js";
import type { Suggestions } from "./form-kit.js";

/** At most this many names of each kind in a form: a datalist, not a directory. */
export const MAX_SUGGESTIONS = 200;

/**
 * Names already used, most used first, one spelling per source key: what a writer picks from
 * so that one governor does not become three sources by spelling.
 */
export function suggestionsFrom(events: readonly StoredEvent[], summaries: readonly Summary[]): Suggestions {
  const speakers = new Tally();
  const publishers = new Tally();
  for (const e of events) {
    if (e.attributedTo?.name) speakers.add(e.attributedTo.name);
    if (e.type === "StatementMade" && typeof e.data.accuses === "string") speakers.add(e.data.accuses);
    publishers.add(e.source.publisher);
  }
  for (const s of summaries) {
    for (const c of Object.values(s.casualties))
      for (const row of c.bySource) speakers.add(row.attributedTo.name);
    for (const d of s.denials) {
      if (d.attributedTo) speakers.add(d.attributedTo.name);
      for (const a of d.assessments) if (a.attributedTo) speakers.add(a.attributedTo.name);
    }
    for (const st of s.statements.latest) if (st.attributedTo) speakers.add(st.attributedTo.name);
  }
  return { speakers: speakers.top(), publishers: publishers.top() };
}

class Tally {
  private readonly counts = new Map<string, { name: string; n: number }>();
  add(name: string) {
    const key = sourceKey({ name });
    if (key === "") return;
    const known = this.counts.get(key);
    if (known) known.n += 1;
    else this.counts.set(key, { name: key, n: 1 });
  }
  top(): string[] {
    return [...this.counts.values()]
      .sort((a, b) => b.n - a.n || a.name.localeCompare(b.name))
      .slice(0, MAX_SUGGESTIONS)
      .map((e) => e.name);
  }
}
