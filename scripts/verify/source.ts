import type { StoredEvent } from "../../events/stored-event.js";
import type { Hash } from "../../events/transparency/merkle.js";
import { entriesPath, type TileRef, tilePath } from "../../events/transparency/tiles.js";

/** What the verifier reads from an archive; over HTTP in the CLI, in memory in tests. */
export interface LogSource {
  /** The signed checkpoint note. */
  checkpoint(): Promise<string>;
  consistency(from: number, to: number): Promise<Hash[]>;
  /** An entry bundle's bytes (tile/entries/N[.p/W]). */
  entries(ref: { index: number; width: number }): Promise<Uint8Array>;
  /** A hash tile's bytes (tile/L/N[.p/W]). */
  tile(ref: TileRef): Promise<Uint8Array>;
  /** One page of an incident's events, as GET /incidents/{id}/events answers it. */
  events(incidentId: string, after: number): Promise<{ items: StoredEvent[]; next: number | null }>;
  /** One page of GET /feed: the events after log index `after`, in log order. */
  feed(after: number, limit: number): Promise<{ items: FeedItem[]; next: number | null }>;
  /** Bytes downloaded so far (bodies as received), when the source counts them. */
  bytesRead?(): number;
  /** One page of GET /log/timestamps (newest first), from `cursor` (the previous page's nextCursor). */
  timestamps?(cursor?: string): Promise<{ items: TimestampEntry[]; nextCursor?: string }>;
  /** The DER time-stamp response an entry's `href` serves. */
  timestampToken?(href: string): Promise<Uint8Array>;
}

/** An item of GET /feed: an event and its log index. */
export interface FeedItem {
  index: number;
  event: StoredEvent;
}

/** An entry of GET /log/timestamps. */
export interface TimestampEntry {
  treeSize: number;
  checkpoint: string;
  genTime: string;
  tsa: string;
  href: string;
}

export class SourceError extends Error {
  override name = "SourceError";
}

const EVENTS_PAGE = 500;

const LOOPBACK = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/**
 * An archive on this machine is read uncompressed: over loopback, gzip saves no time on the wire
 * and costs the server and the verifier each a pass over every byte of a full check's feed.
 */
function requestHeaders(base: string): Record<string, string> {
  return LOOPBACK.test(new URL(base).hostname) ? { "accept-encoding": "identity" } : {};
}

/**
 * An error's message with its cause's: fetch says only "fetch failed", and what failed (a refused
 * connection, a name not found) is its cause.
 */
export function reasonOf(e: unknown): string {
  const error = e as Error;
  return error.cause instanceof Error ? `${error.message}: ${error.cause.message}` : error.message;
}

/** The archive's public HTTP routes, read with fetch and nothing of the server's code. */
export function httpSource(base: string, get: typeof fetch = fetch): LogSource {
  const root = base.replace(/\/+$/, "");
  const headers = requestHeaders(root);
  let received = 0;

  async function bytes(path: string): Promise<Uint8Array> {
    let answer: Response;
    let body: Uint8Array;
    try {
      answer = await get(`${root}${path}`, { headers });
      body = new Uint8Array(await answer.arrayBuffer());
    } catch (e) {
      throw new SourceError(`GET ${path} failed: ${reasonOf(e)}`);
    }
    received += body.length;
    if (!answer.ok) throw new SourceError(`GET ${path} answered ${answer.status}${problemDetail(body)}`);
    return body;
  }
  const text = async (path: string) => new TextDecoder().decode(await bytes(path));
  async function json(path: string): Promise<unknown> {
    const body = await text(path);
    try {
      return JSON.parse(body);
    } catch {
      throw new SourceError(`GET ${path} did not answer JSON`);
    }
  }

  return {
    bytesRead: () => received,
    checkpoint: () => text("/log/checkpoint"),
    consistency: async (from, to) => {
      const body = (await json(`/log/consistency?from=${from}&to=${to}`)) as { proof?: unknown };
      if (!Array.isArray(body.proof) || !body.proof.every((p) => typeof p === "string")) {
        throw new SourceError("the consistency answer has no proof array");
      }
      return body.proof.map((p: string) => new Uint8Array(Buffer.from(p, "base64")));
    },
    entries: (ref) => bytes(`/log/${entriesPath(ref)}`),
    tile: (ref) => bytes(`/log/${tilePath(ref)}`),
    timestamps: async (cursor) => {
      const body = (await json(
        `/log/timestamps${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ""}`,
      )) as {
        items?: unknown;
        nextCursor?: unknown;
      };
      if (!Array.isArray(body.items)) throw new SourceError("the timestamps answer has no items array");
      return {
        items: body.items as TimestampEntry[],
        ...(typeof body.nextCursor === "string" ? { nextCursor: body.nextCursor } : {}),
      };
    },
    timestampToken: (href) => {
      if (!href.startsWith("/log/timestamps/"))
        throw new SourceError(`a token's href ${href} is not under /log/timestamps/`);
      return bytes(href);
    },
    feed: async (after, limit) => {
      const body = (await json(`/feed?after=${after}&limit=${limit}`)) as { items?: unknown; next?: unknown };
      if (!Array.isArray(body.items)) throw new SourceError("the feed's answer has no items array");
      return { items: body.items as FeedItem[], next: typeof body.next === "number" ? body.next : null };
    },
    events: async (incidentId, after) => {
      const path = `/incidents/${encodeURIComponent(incidentId)}/events?after=${after}&limit=${EVENTS_PAGE}`;
      return (await json(path)) as { items: StoredEvent[]; next: number | null };
    },
  };
}

/** A problem document's detail, to say after the status (": log leaf 6 names …"); else nothing. */
function problemDetail(body: Uint8Array): string {
  try {
    const detail = (JSON.parse(new TextDecoder().decode(body)) as { detail?: unknown }).detail;
    return typeof detail === "string" && detail !== "" ? `: ${detail.slice(0, 500)}` : "";
  } catch {
    return "";
  }
}
