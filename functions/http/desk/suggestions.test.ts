import { describe, expect, it } from "vitest";
import type { StoredEvent } from "../../../events/stored-event.js";
import { suggestionsFrom } from "./suggestions.js";

const stored = (attributedTo: Record<string, unknown>, publisher: string) =>
  ({
    incidentId: "i",
    eventId: `e-${publisher}`,
    version: 1,
    type: "StatementMade",
    source: { publisher },
    attributedTo,
    data: { quote: "q", stance: "neutral" },
  }) as unknown as StoredEvent;

describe("suggestionsFrom: names a writer picks from", () => {
  it("given a private person's statement (its name sealed), then no name of theirs, and the others still suggested", () => {
    const suggestions = suggestionsFrom(
      [
        stored({ kind: "private", ref: "witness-1", name: { $sealed: "sha-256:abc" } }, "Kyiv Independent"),
        stored({ name: "Pavlo  Kyrylenko" }, "AP"),
        stored({ name: "Pavlo Kyrylenko" }, "AP"),
      ],
      [],
    );
    expect(suggestions).toEqual({ speakers: ["Pavlo Kyrylenko"], publishers: ["AP", "Kyiv Independent"] });
  });
});
