import type { FC } from "hono/jsx";
import { parseCheckpoint } from "../../../events/transparency/checkpoint.js";
import { parseNote } from "../../../events/transparency/note.js";

/** What the incident page shows of the transparency log (issue 11): cheap, one or two reads. */
export interface LogView {
  /** The latest signed checkpoint, or null before the first. */
  checkpoint: { size: number; root: string; origin: string; cosigners: string[] } | null;
  /** Leaf index of each version of the incident that is sequenced. */
  indexes: Map<number, number>;
}

/** The latest checkpoint as the integrity panel shows it: size, root, origin and cosigners. */
export function readCheckpointView(stored: {
  size: number;
  root: string;
  text: string;
}): LogView["checkpoint"] {
  const note = parseNote(stored.text);
  const origin = parseCheckpoint(note.text).origin;
  // Signature lines other than the log's own: witnesses' cosignatures (check them with their keys).
  const cosigners = [...new Set(note.signatures.map((s) => s.name).filter((name) => name !== origin))];
  return { size: stored.size, root: stored.root, origin, cosigners };
}

/** One event's place in the log, for its timeline entry. */
export const EventLogLine: FC<{
  incidentId: string;
  eventId: string;
  index: number | undefined;
  treeSize: number;
}> = ({ incidentId, eventId, index, treeSize }) =>
  index === undefined || index >= treeSize ? (
    <>not in a signed checkpoint yet</>
  ) : (
    <>
      <span data-log-index={index}>{`leaf #${index}, in checkpoint ${treeSize}`}</span>
      {" · proof: "}
      <a href={`/incidents/${encodeURIComponent(incidentId)}/events/${encodeURIComponent(eventId)}/proof`}>
        JSON
      </a>
      {", "}
      <a href={`/log/proof/${index}`} download={`leaf-${index}.tlog-proof`}>
        tlog-proof file
      </a>
    </>
  );

/** The integrity panel's part about the global log: its latest checkpoint and who cosigned it. */
export const LogCheckpointNote: FC<{ checkpoint: LogView["checkpoint"] }> = ({ checkpoint }) =>
  checkpoint ? (
    <div data-log-checkpoint={checkpoint.size}>
      <p>
        <strong>Transparency log</strong>
        {`: latest checkpoint ${checkpoint.size} (${checkpoint.size} events in the log of ${checkpoint.origin}), root `}
        <code>{checkpoint.root}</code>
      </p>
      <p>
        {checkpoint.cosigners.length === 0
          ? "Not cosigned by any witness."
          : `Cosigned by ${checkpoint.cosigners.length} witness(es): ${checkpoint.cosigners.join(", ")}.`}{" "}
        <a href="/log/checkpoint">Signed checkpoint</a> · <a href="/log/vkey">log key</a>
      </p>
    </div>
  ) : (
    <p>Transparency log: no signed checkpoint yet.</p>
  );
