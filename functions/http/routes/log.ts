import { type Context, Hono } from "hono";
import type { StoredEvent } from "../../../events/stored-event.js";
import { type LeafFields, leafText } from "../../../events/transparency/leaf.js";
import { consistencyProof, inclusionProof } from "../../../events/transparency/merkle.js";
import { formatProofFile } from "../../../events/transparency/proof-file.js";
import { parseTilePath, TILE_WIDTH, tileWidth } from "../../../events/transparency/tiles.js";
import { MalformedRequestError, NotFoundError } from "../../errors.js";
import type { LogStore, StoredCheckpoint } from "../../log/log-store.js";
import type { LogTiles } from "../../log/log-tiles.js";
import { acceptQuery, incidentToRead, wholeNumber } from "../params.js";

export interface LogRouteDeps {
  logStore: LogStore;
  logTiles: LogTiles;
  /** Finds one event of an incident by id in a read or two (the event store's `findEvent`). */
  findEvent: (incidentId: string, eventId: string) => Promise<StoredEvent | null>;
  /** The log's verifier key (`<name>+<id>+<key>`); locally from the key, in AWS from KMS. */
  verifierKey: () => Promise<string>;
  /** How long `wait=true` waits for an event to enter the log (default 10 s). */
  maxWaitMs?: number;
}

const IMMUTABLE = "public, max-age=31536000, immutable";
const FRESH = "no-cache";
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");
const EVENT_ID = /^[A-Za-z0-9_-]{1,128}$/;

function sizeParam(raw: string | undefined, path: string): number | undefined {
  return raw === undefined ? undefined : wholeNumber(raw, path, { min: 0, max: Number.MAX_SAFE_INTEGER });
}

/** An event that is stored: its leaf index once sequenced, else null. */
export interface StoredLeaf {
  incidentId: string;
  eventId: string;
  version: number;
  index: number | null;
}

/**
 * The answer about an event that is stored but not in a signed checkpoint yet, which its proof
 * and its bundle alike give: 202 with Retry-After, since the log takes every stored event within
 * seconds. `retry` says how to ask again.
 */
export function notInLogYet(c: Context, leaf: StoredLeaf, retry: string): Response {
  const { incidentId, eventId, version, index } = leaf;
  return c.json(
    {
      status: "pending",
      detail: `event ${eventId} (version ${version}) is stored but not in a signed checkpoint yet; ${retry}`,
      incidentId,
      eventId,
      version,
      index,
    },
    202,
    { "Retry-After": "1", "Cache-Control": "no-store" },
  );
}

/** The transparency log's read routes (CONTRACT.md, "The transparency log"). */
export function logRoutes(deps: LogRouteDeps) {
  const { logStore, logTiles, findEvent } = deps;
  const app = new Hono();

  const latest = async (): Promise<StoredCheckpoint> => {
    const checkpoint = await logStore.latestCheckpoint();
    if (!checkpoint) throw new NotFoundError("the log has no signed checkpoint yet");
    return checkpoint;
  };

  app.get("/log/checkpoint", acceptQuery(), async (c) => {
    const checkpoint = await latest();
    return c.body(checkpoint.text, 200, {
      "Content-Type": "text/plain; charset=utf-8",
      "Cache-Control": FRESH,
    });
  });

  app.get("/log/vkey", acceptQuery(), async (c) => {
    return c.body(`${await deps.verifierKey()}\n`, 200, {
      "Content-Type": "text/plain; charset=utf-8",
      "Cache-Control": "public, max-age=86400",
    });
  });

  app.get("/log/tile/*", acceptQuery(), async (c) => {
    // A client that follows the document sends the index as one path parameter, its `/` encoded.
    const path = c.req.path.slice("/log/".length).replace(/%2F/gi, "/");
    const tile = parseTilePath(path);
    if (!tile) {
      const message = "must be tile/<L>/<N>[.p/<W>] or tile/entries/<N>[.p/<W>], N in x001/x234/067 form";
      throw new MalformedRequestError(`${path} is not a tile path: ${message}`, [{ path: "path", message }]);
    }
    const { size } = await latest();
    const level = tile.kind === "hash" ? tile.level : 0;
    const available = tileWidth(level, tile.index, size);
    if (tile.width > available) {
      throw new NotFoundError(
        `${path} is beyond the tree of the latest checkpoint (${size} leaves)` +
          (available > 0 ? `: that tile is ${available} wide at this size` : ""),
      );
    }
    const bytes =
      tile.kind === "hash"
        ? await logTiles.hashTile(tile.level, tile.index, tile.width)
        : await logTiles.entryBundle(tile.index, tile.width);
    if (!bytes) throw new NotFoundError(`${path} is not stored yet`);
    return c.body(bytes as Uint8Array<ArrayBuffer>, 200, {
      "Content-Type": "application/octet-stream",
      // A full tile never changes; a partial one is a prefix of it that is served as long as
      // it is wanted, but its URL is not meant to be kept.
      "Cache-Control": tile.width === TILE_WIDTH ? IMMUTABLE : "public, max-age=3600",
    });
  });

  /**
   * The inclusion proof of the leaf at `index` in the latest checkpoint's tree (null: not yet in
   * it). `known`: the leaf's fields when the caller has them (from the event itself).
   */
  const proofOf = async (index: number, known?: LeafFields) => {
    const checkpoint = await latest();
    if (index >= checkpoint.size) return null;
    let leaf = known;
    if (!leaf) {
      const read = await logStore.leaves(index, index + 1).next();
      if (read.done) return null;
      leaf = read.value;
    }
    const inclusion = await inclusionProof(index, checkpoint.size, logTiles.nodeReader(checkpoint.size));
    return { leaf: { ...leaf, index }, checkpoint, inclusion };
  };

  app.get("/incidents/:incidentId/events/:eventId/proof", acceptQuery("wait"), async (c) => {
    const incidentId = incidentToRead(c);
    const eventId = c.req.param("eventId");
    const waitRaw = c.req.query("wait");
    if (waitRaw !== undefined && waitRaw !== "true" && waitRaw !== "false") {
      const message = "must be true or false";
      throw new MalformedRequestError(`query parameter wait ${message}`, [{ path: "query.wait", message }]);
    }
    const event = EVENT_ID.test(eventId) ? await findEvent(incidentId, eventId) : null;
    if (!event) throw new NotFoundError(`no event ${eventId} in incident ${incidentId}`);
    const { version } = event;
    const deadline = Date.now() + (waitRaw === "true" ? (deps.maxWaitMs ?? 10_000) : 0);
    for (;;) {
      const index = await logStore.indexOf(incidentId, version);
      const { eventId: id, hash } = event;
      // The leaf is made of the event's own fields: a leaf edited in the table no longer matches
      // the proof, and any verifier sees it.
      const proof = index === null ? null : await proofOf(index, { incidentId, version, eventId: id, hash });
      if (proof) {
        return c.json(
          {
            index: proof.leaf.index,
            leaf: new TextDecoder().decode(leafText(proof.leaf)),
            treeSize: proof.checkpoint.size,
            inclusion: proof.inclusion.map(b64),
            checkpoint: proof.checkpoint.text,
          },
          200,
          { "Cache-Control": FRESH },
        );
      }
      if (Date.now() >= deadline)
        return notInLogYet(c, { incidentId, eventId, version, index }, "retry, or ask with wait=true");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });

  app.get("/log/proof/:index", acceptQuery(), async (c) => {
    const index = sizeParam(c.req.param("index"), "path.index") as number;
    const proof = await proofOf(index);
    if (!proof) throw new NotFoundError(`no leaf ${index} in the latest checkpoint's tree`);
    const text = formatProofFile({
      // The leaf text, so the file alone names the event it proves (verifiers recompute it).
      extra: leafText(proof.leaf),
      index,
      inclusion: proof.inclusion,
      checkpoint: proof.checkpoint.text,
    });
    return c.body(text, 200, {
      "Content-Type": "text/plain; charset=utf-8",
      "Content-Disposition": `attachment; filename="leaf-${index}.tlog-proof"`,
      "Cache-Control": FRESH,
    });
  });

  app.get("/log/consistency", acceptQuery("from", "to"), async (c) => {
    const checkpoint = await latest();
    const from = sizeParam(c.req.query("from"), "query.from");
    const to = sizeParam(c.req.query("to"), "query.to") ?? checkpoint.size;
    if (from === undefined) {
      const message = "is required (the tree size you hold)";
      throw new MalformedRequestError(`query parameter from ${message}`, [{ path: "query.from", message }]);
    }
    if (to > checkpoint.size) {
      const message = `must not exceed the latest checkpoint's tree size, ${checkpoint.size}`;
      throw new MalformedRequestError(`to ${to} is beyond the tree: ${message}`, [
        { path: "query.to", message },
      ]);
    }
    if (from > to) {
      const message = `must not exceed to (${to})`;
      throw new MalformedRequestError(`from ${from} is beyond to ${to}`, [{ path: "query.from", message }]);
    }
    const proof = from === 0 || from === to ? [] : await consistencyProof(from, to, logTiles.nodeReader(to));
    return c.json({ from, to, proof: proof.map(b64) }, 200, {
      // A proof between two given sizes never changes; without `to` it follows the log.
      "Cache-Control": c.req.query("to") !== undefined ? IMMUTABLE : FRESH,
    });
  });

  return app;
}
