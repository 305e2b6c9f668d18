import { Hono } from "hono";
import { parseAppendBody } from "../../../events/validate.js";
import { NotFoundError, ValidationError } from "../../errors.js";
import type { AppendRequest, AppendResult, EventStore } from "../../store/event-store.js";
import { type Authenticator, requireRole } from "../auth.js";
import { acceptQuery, expectedVersion, incidentToRead, incidentToWrite, intQuery } from "../params.js";
import { readJsonBody } from "../read-body.js";

export const MAX_BODY_BYTES = 256 * 1024;

export interface EventRoutesDeps {
  events: EventStore;
  authenticate: Authenticator;
  /** The append path (default the event store's): the sealing one (functions/people/sealed-append.ts). */
  append?: (request: AppendRequest) => Promise<AppendResult>;
}

/** POST and GET /incidents/{incidentId}/events: the only write, and the raw record. */
export function eventRoutes({ events, authenticate, append }: EventRoutesDeps) {
  const app = new Hono();
  const appendEvents = append ?? ((request: AppendRequest) => events.append(request));

  app.post("/incidents/:incidentId/events", acceptQuery(), async (c) => {
    // Credentials first: an unauthenticated caller learns nothing about its payload.
    const writer = requireRole(authenticate, c, "writer", "a write");
    const recordedBy = writer.name;
    const incidentId = incidentToWrite(c);
    const ifMatch = expectedVersion(c);
    const parsed = parseAppendBody(await readJsonBody(c, MAX_BODY_BYTES));
    if (!parsed.ok) {
      throw new ValidationError(
        `${parsed.errors.length} field${parsed.errors.length === 1 ? "" : "s"} failed: ${parsed.errors
          .slice(0, 3)
          .map((e) => `${e.path} ${e.message}`)
          .join("; ")}; nothing was stored`,
        parsed.errors,
      );
    }
    // The editors' types are the archive's own judgements (CONTRACT.md "Roles").
    if (parsed.value.some((e) => e.type === "RedactionApplied"))
      requireRole(authenticate, c, "editor", "a RedactionApplied");
    const result = await appendEvents({
      incidentId,
      envelopes: parsed.value,
      recordedBy,
      batched: parsed.batched,
      ...(ifMatch === undefined ? {} : { expectedVersion: ifMatch }),
    });
    c.header("ETag", `"${result.version}"`);
    c.header("Location", `/incidents/${incidentId}`);
    const { created: _created, ...answer } = result;
    return c.json(answer, result.created ? 201 : 200);
  });

  app.get("/incidents/:incidentId/events", acceptQuery("after", "limit"), async (c) => {
    const incidentId = incidentToRead(c);
    const after = intQuery(c, "after", { min: 0, max: Number.MAX_SAFE_INTEGER, fallback: 0 }) as number;
    const limit = intQuery(c, "limit", { min: 1, max: 500, fallback: 100 }) as number;
    const page = await events.readPage(incidentId, after, limit);
    if (page.items.length === 0 && (await events.readHead(incidentId)).version === 0) {
      throw new NotFoundError(`no incident ${incidentId}`);
    }
    return c.json(page);
  });

  return app;
}
