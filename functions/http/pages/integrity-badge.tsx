import type { FC } from "hono/jsx";
import type { ChainCheck } from "../../../events/stored-event.js";
import { formatInstant } from "./format.js";
import { LogCheckpointNote, type LogView } from "./log-panel.js";

/**
 * What the page knows of the chain without re-hashing all of it on every view: the last full
 * re-check (by /verify, or by this page while the incident was short), and a check, made just
 * now, of the events added since, linked to the hash that full check ended at.
 */
export interface IntegrityReport {
  /** The check made for this view: of every event since `since` (0: since the start). */
  check: ChainCheck;
  since: number;
  /** The last full re-check this check continues, if one is recorded. */
  full: { version: number; checkedAt: string } | null;
  /** True when only the latest links were checked: no full check is recorded close enough. */
  partial: boolean;
  /** True when this view re-checked the whole chain (a short incident). */
  whole?: boolean;
}

export const IntegrityBadge: FC<{
  incidentId: string;
  report: IntegrityReport;
  past: { version: number; headHash: string } | null;
  /** The transparency log's latest checkpoint, when the page knows it. */
  log?: LogView;
}> = ({ incidentId, report, past, log }) => {
  const { check, since, full, partial, whole } = report;
  return (
    <section
      class={`panel integrity ${check.ok ? "ok" : "bad"}`}
      aria-labelledby="integrity-h"
      data-integrity={check.ok ? (partial ? "partial" : "ok") : "broken"}
    >
      <h2 id="integrity-h">Integrity</h2>
      {check.ok ? (
        <>
          <p>
            <strong>
              <span aria-hidden="true">{partial ? "◐ " : "✔ "}</span>
              {partial ? "Latest links intact" : "Hash chain intact"}
            </strong>
            {full
              ? whole
                ? `: all ${full.version} event(s) re-read and re-hashed for this page, just now`
                : `: all ${full.version} event(s) re-read and re-hashed at ${formatInstant(full.checkedAt)}`
              : ""}
            {since < check.version
              ? `${full ? "; " : ": "}v${since + 1}–v${check.version} re-read and re-hashed just now${partial ? ", linked to each other but not yet to a full check" : ""}.`
              : "."}
          </p>
          <p>
            Head hash (v{check.version}): <code data-head-hash="">{check.headHash}</code>
          </p>
        </>
      ) : (
        <>
          <p>
            <strong>
              <span aria-hidden="true">✘ </span>Hash chain broken at version {check.firstBadVersion}
            </strong>
            {`: ${check.reason}`}
          </p>
          <p>
            Do not rely on this incident's record until the stored events are restored from a trusted copy.
          </p>
        </>
      )}
      {past ? (
        <p>
          This past view ends at v{past.version}, hash <code>{past.headHash}</code>.
        </p>
      ) : null}
      <p>
        <a href={`/incidents/${encodeURIComponent(incidentId)}/verify`}>
          {partial ? "Run the full check (JSON)" : "Check it yourself (JSON): a full re-read"}
        </a>
      </p>
      {log ? <LogCheckpointNote checkpoint={log.checkpoint} /> : null}
    </section>
  );
};
