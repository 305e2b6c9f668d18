import { sourceKey } from "../../../events/source-key.js";
import type { StoredEvent } from "../../../events/stored-event.js";
import type { Summary } from "../../../events/summarize.js";
import type { Suggestions } from "./form-kit.js";

/** At most this many names of each kind in a form: a datalist, not a directory. */
export const MAX_SUGGESTIONS = 200;

/**
 * A speaker's name to suggest: never a private person's, whose name is sealed (a commitment in
 * the stored event and the summary, not text) and must not reach another writer's form.
 */
const nameOf = (by: { name?: unknown; kind?: unknown } | undefined): unknown =>
  by?.kind === "private" ? undefined : by?.name;

/**
 * Names already used, most used first, one spelling per source key: what a writer picks from
 * so that one governor does not become three sources by spelling.
 */
export function suggestionsFrom(events: readonly StoredEvent[], summaries: readonly Summary[]): Suggestions {
  const speakers = new Tally();
  const publishers = new Tally();
  for (const e of events) {
    speakers.add(nameOf(e.attributedTo));
    if (e.type === "StatementMade") speakers.add(e.data.accuses);
    publishers.add(e.source.publisher);
  }
  for (const s of summaries) {
    for (const c of Object.values(s.casualties))
      for (const row of c.bySource) speakers.add(nameOf(row.attributedTo));
    for (const d of s.denials) {
      speakers.add(nameOf(d.attributedTo));
      for (const a of d.assessments) speakers.add(nameOf(a.attributedTo));
    }
    for (const st of s.statements.latest) speakers.add(nameOf(st.attributedTo));
  }
  return { speakers: speakers.top(), publishers: publishers.top() };
}

class Tally {
  private readonly counts = new Map<string, { name: string; n: number }>();
  /** Text only: anything else (absent, or a sealed value) is no name to suggest. */
  add(name: unknown) {
    if (typeof name !== "string") return;
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
