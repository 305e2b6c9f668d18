import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import { AP, post } from "../support/archive.js";

/** Shared by the dashboard tests: the sample, loaded through the HTTP API, and a hostile incident. */

export const KRAMATORSK = "kramatorsk-station-2022-04-08";
export const BUCHA = "bucha-church-mass-grave-2022-04-08";
export const BORODYANKA = "borodyanka-bodies-2022-04-07";

interface SampleRow {
  incidentId: string;
  // biome-ignore lint/suspicious/noExplicitAny: sample events are posted as they are and read loosely.
  event: any;
}

export function sampleRows(): SampleRow[] {
  const file = fileURLToPath(new URL("../../sample/kramatorsk-article.ndjson", import.meta.url));
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as SampleRow);
}

/**
 * Posts every sample row the way `npm run sample` does. `pauseMs` between posts keeps the
 * recordedAt values apart, so a moment strictly between two of them exists at millisecond
 * precision (what a datetime-local field can express).
 */
export async function loadSample(base: string, pauseMs = 0): Promise<void> {
  for (const { incidentId, event } of sampleRows()) {
    const answer = await post(base, incidentId, event);
    expect(answer.status, `${event.eventId}: ${JSON.stringify(answer.body)}`).toBeLessThan(300);
    if (pauseMs) await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
}

export const HOSTILE = "xss-probe-incident";
export const SCRIPT_QUOTE = "<script>window.__pwned=1</script>";
export const IMG_QUOTE = `<img src=x onerror="window.__pwned=2">`;
/** Breaks out of a double-quoted attribute if attribute values were not escaped. */
export const ATTR_BREAKER = `Mallory "><svg onload="window.__pwned=3">`;

/** An incident whose every free-text field tries to inject markup. */
export function hostileEvents() {
  const who = { name: ATTR_BREAKER, role: `<b>role</b>`, side: `'><script>window.__pwned=4</script>` };
  const source = { publisher: `<i>Publisher</i> & "Co"`, url: "https://example.org/a?b=<c>&d='e'" };
  return [
    {
      eventId: "xss-opened",
      type: "IncidentOpened",
      source,
      data: {
        title: `Probe ${SCRIPT_QUOTE}`,
        kind: "shelling",
        location: { name: `<u>Town</u>`, country: "UA" },
        description: IMG_QUOTE,
      },
    },
    {
      eventId: "xss-toll",
      type: "CasualtiesReported",
      source,
      attributedTo: who,
      data: { figures: { killed: { value: 3, qualifier: "exact", text: SCRIPT_QUOTE } } },
    },
    {
      eventId: "xss-quote",
      type: "StatementMade",
      source,
      attributedTo: who,
      data: {
        quote: `${SCRIPT_QUOTE} ${IMG_QUOTE}`,
        stance: "accuses",
        accuses: IMG_QUOTE,
        channel: SCRIPT_QUOTE,
      },
    },
    {
      eventId: "xss-denial",
      type: "DenialIssued",
      source: AP,
      attributedTo: who,
      data: { claim: SCRIPT_QUOTE, counterClaim: IMG_QUOTE, quote: ATTR_BREAKER },
    },
    {
      eventId: "xss-assess",
      type: "ClaimAssessed",
      source: AP,
      attributedTo: who,
      data: { targetEventId: "xss-denial", verdict: "disputed", reasoning: IMG_QUOTE },
    },
  ];
}

export async function loadHostile(base: string): Promise<void> {
  for (const event of hostileEvents()) {
    const answer = await post(base, HOSTILE, event);
    expect(answer.status, `${event.eventId}: ${JSON.stringify(answer.body)}`).toBeLessThan(300);
  }
}
