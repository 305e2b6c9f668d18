import { fieldPath } from "./append-rules.js";
import type { Envelope } from "./schemas.js";
import type { StoredEvent } from "./stored-event.js";
import type { FieldError } from "./validate.js";

/** What the summary keeps of each capture, newest last; at most EVIDENCE_LATEST of them. */
export interface EvidenceRow {
  eventId: string;
  version: number;
  recordedAt: string;
  sha256: string;
  size: number;
  mediaType: string;
  kind: string;
  title?: string;
  access: "public" | "restricted";
  sourceUrl?: string;
  capturedAt?: string;
  /** The capturing tool, with its version when given. */
  tool?: string;
  /** How many reports name these bytes in their evidence list, and the first CITED_KEPT of them. */
  cited?: number;
  citedBy?: { eventId: string; version: number; type: string }[];
  /** A ReportRetracted names the capture: the bytes are still held, the report of them withdrawn. */
  retracted?: true;
}

/** Reports kept per capture as resting on it; `cited` counts them all. */
export const CITED_KEPT = 5;
/**
 * A row keeps a source URL up to this long, and the tool's name clipped to it: 100 rows stay
 * small in the stored view whatever was posted (the event itself holds the whole of both).
 */
export const ROW_TEXT_LIMIT = 200;
const clipped = (text: string) =>
  text.length <= ROW_TEXT_LIMIT
    ? text
    : `${Array.from(text)
        .slice(0, ROW_TEXT_LIMIT - 1)
        .join("")}…`;

/** The summary's `evidence.latest` carries at most this many captures; `count` counts them all. */
export const EVIDENCE_LATEST = 100;

type Capture = Extract<Envelope, { type: "EvidenceCaptured" }>;

const isCapture = (e: Envelope | StoredEvent): e is Capture => e.type === "EvidenceCaptured";

/** A capture's access: public unless it says restricted. */
export const accessOf = (data: { access?: "public" | "restricted" }) => data.access ?? "public";

/** The bytes each capture of an append names, with the size it says they have. */
export function capturesOf(
  envelopes: readonly Envelope[],
  batched: boolean,
): { path: string; sha256: string; size: number; access: "public" | "restricted" }[] {
  return envelopes.flatMap((e, i) =>
    isCapture(e)
      ? [
          {
            path: fieldPath(batched, i, "data.sha256"),
            sha256: e.data.sha256,
            size: e.data.size,
            access: accessOf(e.data),
          },
        ]
      : [],
  );
}

/**
 * Each capture against what the blob store holds under its hash: bytes missing, or held with
 * another size, break the rule (the field named is `data.sha256`).
 */
export function checkCapturesHeld(
  captures: readonly { path: string; sha256: string; size: number }[],
  held: readonly ({ size: number } | null)[],
): FieldError[] {
  return captures.flatMap((capture, i) => {
    const blob = held[i];
    if (!blob)
      return [
        {
          path: capture.path,
          message: `no evidence ${capture.sha256} is held: upload the bytes first (POST /evidence)`,
        },
      ];
    if (blob.size !== capture.size)
      return [
        {
          path: capture.path,
          message: `the evidence ${capture.sha256} held is ${blob.size} bytes, not the ${capture.size} of data.size`,
        },
      ];
    return [];
  });
}

/** The evidence each report of an append rests on, less what captures in the same append provide. */
export function evidenceNamed(
  envelopes: readonly Envelope[],
  batched: boolean,
): { path: string; sha256: string }[] {
  const inAppend = new Set(envelopes.flatMap((e) => (isCapture(e) ? [e.data.sha256] : [])));
  return envelopes.flatMap((e, i) =>
    "evidence" in e && e.evidence
      ? e.evidence.flatMap((sha256, j) =>
          inAppend.has(sha256) ? [] : [{ path: fieldPath(batched, i, `evidence[${j}]`), sha256 }],
        )
      : [],
  );
}

/** Each named piece of evidence must be a capture of this incident (stored, or in the same append). */
export function checkEvidenceNamed(
  named: readonly { path: string; sha256: string }[],
  captured: ReadonlySet<string>,
): FieldError[] {
  return named
    .filter((n) => !captured.has(n.sha256))
    .map((n) => ({
      path: n.path,
      message: `${n.sha256} is not evidence captured in this incident (no EvidenceCaptured event of it here)`,
    }));
}

/** The SHA-256 a stored event captures, if it is a capture. */
export const capturedSha256 = (event: StoredEvent): string | undefined =>
  event.type === "EvidenceCaptured" ? (event.data.sha256 as string) : undefined;

/** A stored capture as the summary keeps it. */
export function evidenceRow(event: StoredEvent): EvidenceRow {
  const d = event.data;
  return {
    eventId: event.eventId,
    version: event.version,
    recordedAt: event.recordedAt,
    sha256: d.sha256,
    size: d.size,
    mediaType: d.mediaType,
    kind: d.kind,
    ...(d.title ? { title: d.title } : {}),
    access: accessOf(d),
    ...(d.sourceUrl && d.sourceUrl.length <= ROW_TEXT_LIMIT ? { sourceUrl: d.sourceUrl } : {}),
    ...(d.capturedAt ? { capturedAt: d.capturedAt } : {}),
    ...(d.capturedBy
      ? {
          tool: clipped(
            d.capturedBy.version ? `${d.capturedBy.tool} ${d.capturedBy.version}` : d.capturedBy.tool,
          ),
        }
      : {}),
  };
}

/** A report naming evidence: noted on each kept capture of those bytes. */
export function citeEvidence(
  state: { count: number; latest: EvidenceRow[] } | undefined,
  event: StoredEvent,
): { count: number; latest: EvidenceRow[] } | undefined {
  if (!state || !event.evidence) return state;
  const named = new Set(event.evidence);
  for (const row of state.latest) {
    if (!named.has(row.sha256)) continue;
    row.cited = (row.cited ?? 0) + 1;
    const citedBy = row.citedBy ?? [];
    if (citedBy.length < CITED_KEPT)
      citedBy.push({ eventId: event.eventId, version: event.version, type: event.type });
    row.citedBy = citedBy;
  }
  return state;
}

/** The fold's evidence state after one more capture: counted, and kept among the latest. */
export function addCapture(
  state: { count: number; latest: EvidenceRow[] } | undefined,
  event: StoredEvent,
): { count: number; latest: EvidenceRow[] } {
  const next = state ?? { count: 0, latest: [] };
  next.count += 1;
  const row = evidenceRow(event);
  // Bytes once restricted stay restricted (the store only ever tightens them): every kept
  // capture of the same bytes shows it, a public one made before or after the restricted one.
  const same = next.latest.filter((r) => r.sha256 === row.sha256);
  if (same.some((r) => r.access === "restricted")) row.access = "restricted";
  if (row.access === "restricted") for (const r of same) r.access = "restricted";
  next.latest.push(row);
  if (next.latest.length > EVIDENCE_LATEST) next.latest.splice(0, next.latest.length - EVIDENCE_LATEST);
  return next;
}

/** A capture as the summary's `evidence.latest` and the incident's …/evidence pages list it. */
export function evidenceListRow({ eventId, sha256, kind, title, access, retracted }: EvidenceRow) {
  return { eventId, sha256, kind, ...(title ? { title } : {}), access, ...(retracted ? { retracted } : {}) };
}

/** The summary's evidence block: the newest first. */
export function evidenceSummary(state: { count: number; latest: EvidenceRow[] } | undefined) {
  return {
    count: state?.count ?? 0,
    latest: [...(state?.latest ?? [])].reverse().map(evidenceListRow),
  };
}
