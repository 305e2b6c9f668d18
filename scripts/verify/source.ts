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
}

export class SourceError extends Error {
  override name = "SourceError";
}

const EVENTS_PAGE = 500;

/** The archive's public HTTP routes, read with fetch and nothing of the server's code. */
export function httpSource(base: string, get: typeof fetch = fetch): LogSource {
  const root = base.replace(/\/+$/, "");
  async function read(path: string): Promise<Response> {
    let answer: Response;
    try {
      answer = await get(`${root}${path}`);
    } catch (e) {
      throw new SourceError(`GET ${path} failed: ${(e as Error).message}`);
    }
    if (!answer.ok) throw new SourceError(`GET ${path} answered ${answer.status}`);
    return answer;
  }
  const bytes = async (path: string) => new Uint8Array(await (await read(path)).arrayBuffer());
  return {
    checkpoint: async () => (await read("/log/checkpoint")).text(),
    consistency: async (from, to) => {
      const body = (await (await read(`/log/consistency?from=${from}&to=${to}`)).json()) as {
        proof?: unknown;
      };
      if (!Array.isArray(body.proof) || !body.proof.every((p) => typeof p === "string")) {
        throw new SourceError("the consistency answer has no proof array");
      }
      return body.proof.map((p: string) => new Uint8Array(Buffer.from(p, "base64")));
    },
    entries: (ref) => bytes(`/log/${entriesPath(ref)}`),
    tile: (ref) => bytes(`/log/${tilePath(ref)}`),
    events: async (incidentId, after) => {
      const path = `/incidents/${encodeURIComponent(incidentId)}/events?after=${after}&limit=${EVENTS_PAGE}`;
      return (await (await read(path)).json()) as { items: StoredEvent[]; next: number | null };
    },
  };
}
