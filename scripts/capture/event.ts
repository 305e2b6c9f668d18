import { createHash } from "node:crypto";
import type { ArchiverFacts } from "./auto-archiver.js";
import type { WarcFacts } from "./warc.js";

export interface CaptureInput {
  incidentId: string;
  sha256: string;
  size: number;
  mediaType: string;
  sourceUrl?: string;
  kind?: string;
  title?: string;
  access?: "public" | "restricted";
  publisher?: string;
  capturedAt?: string;
  tool: { tool: string; version?: string };
  warc?: WarcFacts | null;
  archiver?: ArchiverFacts | null;
}

/** The capture's eventId: from the incident and the hash, so a rerun names the same event. */
export function captureEventId(incidentId: string, sha256: string): string {
  return `cap-${createHash("sha256").update(`${incidentId}\n${sha256}`).digest("hex").slice(0, 40)}`;
}

/** The kind a media type suggests, when none is given. */
export function kindOf(mediaType: string, warc: boolean): string {
  if (warc) return "archive";
  if (mediaType.startsWith("image/")) return "image";
  if (mediaType.startsWith("video/")) return "video";
  if (mediaType.startsWith("audio/")) return "audio";
  if (mediaType.startsWith("text/html")) return "web-page";
  return "document";
}

/** The EvidenceCaptured envelope (CONTRACT.md "Evidence"); only facts the inputs hold. */
export function captureEnvelope(input: CaptureInput) {
  const sourceUrl = input.sourceUrl ?? input.archiver?.url ?? input.warc?.targetUri;
  const capturedAt = input.capturedAt ?? input.archiver?.capturedAt ?? normalise(input.warc?.date);
  const publisher = input.publisher ?? (sourceUrl ? new URL(sourceUrl).hostname : undefined);
  if (!publisher) throw new Error("say who published it: --publisher <name>, or --source-url <url>");
  const title = input.title ?? input.archiver?.title;
  const container = input.warc
    ? {
        format: input.warc.format,
        ...(input.warc.payloadDigest ? { payloadDigest: input.warc.payloadDigest } : {}),
      }
    : undefined;
  const archives = (input.archiver?.storedAt ?? []).map((url) => ({
    service: "auto-archiver",
    url,
    ...(input.archiver?.capturedAt ? { capturedAt: input.archiver.capturedAt } : {}),
  }));
  return {
    eventId: captureEventId(input.incidentId, input.sha256),
    type: "EvidenceCaptured",
    source: { publisher, ...(sourceUrl ? { url: sourceUrl } : {}) },
    data: {
      sha256: input.sha256,
      size: input.size,
      mediaType: input.mediaType,
      kind: input.kind ?? kindOf(input.mediaType, Boolean(input.warc)),
      ...(sourceUrl ? { sourceUrl } : {}),
      ...(capturedAt ? { capturedAt } : {}),
      capturedBy: input.archiver ? { tool: "auto-archiver" } : input.tool,
      ...(container ? { container } : {}),
      ...(archives.length > 0 ? { archives } : {}),
      ...(title ? { title } : {}),
      ...(input.access ? { access: input.access } : {}),
    },
  };
}

/** A WARC-Date as an ISO instant with its zone. */
function normalise(date: string | undefined): string | undefined {
  if (!date) return undefined;
  const time = Date.parse(date);
  return Number.isFinite(time) ? new Date(time).toISOString() : undefined;
}
