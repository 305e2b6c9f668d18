import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import type { Summary } from "../../events/summarize.js";
import { atLeast, casualties, exact, given, INCIDENT, opened } from "../../events/test-kit.js";
import { Exporter } from "./exports.js";
import type { FeedReader } from "./feed-reader.js";
import type { LeafRecord, LogReader } from "./log-reader.js";

/** One incident whose two sources disagree: "at least 50" and "exactly 61". */
function disagreeing(): Summary {
  let summary: Summary | undefined;
  given(opened(), casualties("c1", "Governor", { killed: atLeast(50) }))
    .when(casualties("c2", "Police", { killed: exact(61) }))
    .then((s) => {
      summary = s;
    });
  return summary as Summary;
}

const log = (version: number): LogReader => ({
  latestCheckpoint: async () => null,
  async *leaves(from, to) {
    for (let v = from + 1; v <= Math.min(to, version); v++)
      yield {
        index: v - 1,
        incidentId: INCIDENT,
        version: v,
        eventId: `e${v}`,
        hash: "0",
        commit: v,
      } as LeafRecord;
  },
});

async function ucdpRow(exporter: Exporter, treeSize: number): Promise<Record<string, string>> {
  let text = "";
  for await (const chunk of exporter.ucdpGedCsv(treeSize)) text += chunk;
  const rows: Record<string, string>[] = parse(text, { columns: true });
  expect(rows).toHaveLength(1);
  return rows[0] as Record<string, string>;
}

/** An exporter whose stored view of the incident is `view`, and whose fold gives `fresh` (each fold noted). */
function exporterOver(view: Summary, fresh: Summary) {
  const folded: string[] = [];
  const exporter = new Exporter({} as FeedReader, log(fresh.version), {
    summary: async (id) => {
      folded.push(id);
      return fresh;
    },
    currentSummaries: async () =>
      new Map([[INCIDENT, { version: view.version, json: JSON.stringify(view) }]]),
  });
  return { exporter, folded };
}

describe("ucdp-ged.csv from stored views", () => {
  it("given a view stored before `lowest` existed, when the UCDP export reads it, then the row is folded afresh and low is not left empty", async () => {
    const fresh = disagreeing();
    const { lowest: _, ...killed } = fresh.casualties.killed as NonNullable<Summary["casualties"]["killed"]>;
    const stale: Summary = { ...fresh, casualties: { ...fresh.casualties, killed } };
    const { exporter, folded } = exporterOver(stale, fresh);
    expect(await ucdpRow(exporter, fresh.version)).toMatchObject({ low: "50", best: "50", high: "" });
    expect(folded).toEqual([INCIDENT]);
  });

  it("given a view in the current shape, when the UCDP export reads it, then the row comes from the view, unfolded", async () => {
    const fresh = disagreeing();
    const { exporter, folded } = exporterOver(fresh, fresh);
    expect(await ucdpRow(exporter, fresh.version)).toMatchObject({ low: "50", best: "50" });
    expect(folded).toEqual([]);
  });
});
