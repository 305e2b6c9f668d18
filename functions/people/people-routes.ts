import type { Context } from "hono";
import { Hono } from "hono";
import { commitmentsIn } from "../../events/sealing.js";
import type { StoredEvent } from "../../events/stored-event.js";
import { NotFoundError, UnauthorizedError } from "../errors.js";
import { textStream } from "../export/exports.js";
import type { LogReader } from "../export/log-reader.js";
import { exportTreeSize } from "../export/query-rules.js";
import type { Principal } from "../http/auth.js";
import { acceptQuery, incidentToRead } from "../http/params.js";
import type { EventStore } from "../store/event-store.js";
import type { DisclosureReader } from "./disclosure-reader.js";
import type { DisclosureStore } from "./disclosure-store.js";

/**
 * Who reads, on a public GET: nobody (no Authorization header), or the caller its bearer token
 * names. Async: in AWS no authorizer runs on public reads, so the Lambda verifies the token
 * itself (functions/http/async-auth.ts); locally it is the same token check as for writes.
 */
export type ReaderAuthenticator = (c: Context) => Promise<Principal | null>;

/** The caller of a read: null without credentials; wrong credentials are a 401, never a silent public answer. */
export async function readerOf(authenticate: ReaderAuthenticator, c: Context): Promise<Principal | null> {
  if (c.req.header("authorization") === undefined) return null;
  const who = await authenticate(c);
  if (!who) {
    c.header("WWW-Authenticate", 'Bearer realm="incident-ledger"');
    throw new UnauthorizedError("the Authorization header does not name a user of this archive");
  }
  return who;
}

export interface DisclosureRoutesDeps {
  events: EventStore;
  reader: DisclosureReader;
  readerAuth: ReaderAuthenticator;
}

/** GET /incidents/{id}/events/{eventId}/disclosures: public ones for anyone, restricted ones for a restricted-reader. */
export function disclosureRoutes({ events, reader, readerAuth }: DisclosureRoutesDeps) {
  const app = new Hono();
  app.get("/incidents/:incidentId/events/:eventId/disclosures", acceptQuery(), async (c) => {
    const incidentId = incidentToRead(c);
    const eventId = c.req.param("eventId");
    const who = await readerOf(readerAuth, c);
    const event = /^[A-Za-z0-9_-]{8,64}$/.test(eventId) ? await events.findEvent(incidentId, eventId) : null;
    if (!event) throw new NotFoundError(`no event ${eventId} in incident ${incidentId}`);
    const { items } = await reader.ofEvent(
      event,
      who,
      "GET /incidents/{incidentId}/events/{eventId}/disclosures",
    );
    // An answer that may hold restricted values is for this caller only, never a shared cache.
    // Public answers are revalidated every time: a withheld value must leave every cache at once.
    c.header("Cache-Control", who ? "private, no-store" : "no-cache");
    if (who) c.header("Vary", "Authorization");
    return c.json({ items });
  });
  return app;
}

export interface DisclosureExportDeps {
  events: EventStore;
  disclosures: DisclosureStore;
  /** The log (for `treeSize`): its latest checkpoint, and the leaf index of an event. */
  log?: LogReader;
  leafIndex?: (incidentId: string, version: number) => Promise<number | undefined>;
  /**
   * Where the export is streamed from, when not from here (in AWS: the exports function's URL,
   * as for the other exports, functions/http/routes/exports.ts: API Gateway buffers at most 6 MB).
   * Then this route checks the query and redirects, the query kept as it is: the disclosures are
   * read live, so a tree size is a filter here, never a pin.
   */
  streamedAt?: string;
}

/**
 * GET /export/disclosures.ndjson: every public disclosure that opens a stored commitment, one
 * `{ incidentId, eventId, pointer, disclosure }` a line, for mirrors. Read live, never stored as a
 * file: an erased disclosure leaves the next download at once, and no built copy is left to drop.
 * Lines come in table order (by incident, then event and pointer within a page of the scan).
 *
 * `treeSize=N` (a release's link): only disclosures of events among the log's first N leaves.
 * Visibility only ever narrows (withheld, erased), so these are the disclosures that were public
 * at N and still are; which pointers were public at N the first N leaves themselves say (each
 * `VictimsRecorded`'s `disclose`, and the `RedactionApplied` events among them).
 */
export function disclosureExportRoutes({
  events,
  disclosures,
  log,
  leafIndex,
  streamedAt,
}: DisclosureExportDeps) {
  const app = new Hono();
  app.get("/export/disclosures.ndjson", acceptQuery("treeSize"), async (c) => {
    const size = c.req.query("treeSize") !== undefined && log ? await exportTreeSize(c, log) : undefined;
    if (streamedAt) {
      const query = size === undefined ? "" : `?treeSize=${size}`;
      c.header("Cache-Control", "no-store");
      if (size !== undefined) c.header("X-Tree-Size", String(size));
      return c.redirect(`${streamedAt.replace(/\/+$/, "")}/export/disclosures.ndjson${query}`, 307);
    }
    async function* lines(): AsyncGenerator<string> {
      for await (const page of disclosures.publicPages()) {
        const stored = new Map<string, StoredEvent | null>();
        let out = "";
        for (const item of page) {
          const key = `${item.incidentId}\n${item.eventId}`;
          if (!stored.has(key)) stored.set(key, await events.findEvent(item.incidentId, item.eventId));
          const event = stored.get(key);
          const opens =
            event && commitmentsIn(event).some((m) => m.pointer === item.pointer && m.digest === item.digest);
          if (!event || !opens || item.erased) continue;
          if (size !== undefined) {
            const index = await leafIndex?.(item.incidentId, event.version);
            if (index === undefined || index >= size) continue;
          }
          out += `${JSON.stringify({ incidentId: item.incidentId, eventId: item.eventId, pointer: item.pointer, disclosure: item.disclosure })}\n`;
        }
        if (out) yield out;
      }
    }
    if (size !== undefined) c.header("X-Tree-Size", String(size));
    return c.body(textStream(lines()), 200, {
      "Content-Type": "application/x-ndjson; charset=utf-8",
      // Cut at a tree size, the file is named by it as the other exports are; uncut, it is what is public now.
      "Content-Disposition": `attachment; filename="${size === undefined ? "disclosures.ndjson" : `disclosures-${size}.ndjson`}"`,
      "Cache-Control": "no-store",
    });
  });
  return app;
}
