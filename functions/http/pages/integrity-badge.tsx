import type { FC } from "hono/jsx";
import type { ChainCheck } from "../../../events/stored-event.js";
import { LogCheckpointNote, type LogView } from "./log-panel.js";

/**
 * The result of re-reading the stored events and re-checking their hash chain (the same
 * check as GET /incidents/{id}/verify), with the head hash anyone can compare against their
 * own copy. A past view also names the hash its last version had: that hash is inside the
 * verified chain, so the past view is as checkable as the present.
 */
export const IntegrityBadge: FC<{
  incidentId: string;
  check: ChainCheck;
  past: { version: number; headHash: string } | null;
  /** The transparency log's latest checkpoint, when the page knows it. */
  log?: LogView;
}> = ({ incidentId, check, past, log }) => (
  <section
    class={`panel integrity ${check.ok ? "ok" : "bad"}`}
    aria-labelledby="integrity-h"
    data-integrity={check.ok ? "ok" : "broken"}
  >
    <h2 id="integrity-h">Integrity</h2>
    {check.ok ? (
      <>
        <p>
          <strong>
            <span aria-hidden="true">✔ </span>Hash chain intact
          </strong>
          {`: all ${check.version} stored event(s) re-read and re-hashed just now.`}
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
        <p>Do not rely on this incident's record until the stored events are restored from a trusted copy.</p>
      </>
    )}
    {past ? (
      <p>
        This past view ends at v{past.version}, hash <code>{past.headHash}</code>.
      </p>
    ) : null}
    <p>
      <a href={`/incidents/${encodeURIComponent(incidentId)}/verify`}>Check it yourself (JSON)</a>
    </p>
    {log ? <LogCheckpointNote checkpoint={log.checkpoint} /> : null}
  </section>
);
