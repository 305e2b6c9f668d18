import { type Context, Hono } from "hono";
import { parseAppendBody } from "../../../events/validate.js";
import { LedgerError, NotFoundError, ValidationError } from "../../errors.js";
import type { EvidenceChecks } from "../../evidence/evidence-checks.js";
import type { IncidentReader, PendingProjections } from "../../incident-reader.js";
import type { AppendRequest, AppendResult, EventStore } from "../../store/event-store.js";
import { byteBudget } from "../answer-budget.js";
import { type Authenticator, requireRole } from "../auth.js";
import { credentialsFirst } from "../credentials-first.js";
import { checkEditorial, editorTypeIn } from "../editorial-checks.js";
import { acceptQuery, expectedVersion, incidentToRead, incidentToWrite, intQuery } from "../params.js";
import { readJsonBody } from "../read-body.js";

export const MAX_BODY_BYTES = 256 * 1024;

export interface EventRoutesDeps {
  events: EventStore;
  authenticate: Authenticator;
  /** The append path (default the event store's): the sealing one (functions/people/sealed-append.ts). */
  append?: (request: AppendRequest) => Promise<AppendResult>;
  /** Captures' bytes and evidence lists checked against the blob store (functions/evidence). */
  evidence?: EvidenceChecks;
  /** The current summaries an editorial judgement is checked against (functions/http/editorial-checks.ts). */
  reader?: IncidentReader;
  /** Where projection runs in this process (locally): what an append of a link waits for. */
  pending?: PendingProjections;
}

/** How many failing fields a refusal's detail names. */
const DETAIL_NAMES = 3;

/** POST and GET /incidents/{incidentId}/events: the only write, and the raw record. */
export function eventRoutes({ events, authenticate, append, evidence, reader, pending }: EventRoutesDeps) {
  const app = new Hono();
  const appendEvents = append ?? ((request: AppendRequest) => events.append(request));

  app.post(
    "/incidents/:incidentId/events",
    // Credentials first: an unauthenticated caller learns nothing about its payload or query.
    credentialsFirst(authenticate, "writer", "a write"),
    acceptQuery(),
    async (c) => {
      const recordedBy = requireRole(authenticate, c, "writer", "a write").name;
      const incidentId = incidentToWrite(c);
      const ifMatch = expectedVersion(c);
      const body = await readJsonBody(c, MAX_BODY_BYTES);
      // The archive's own judgements need an editor (CONTRACT.md "Roles"): asked of the types the
      // body names, before their events are validated.
      const judgement = editorTypeIn(body);
      if (judgement)
        requireRole(authenticate, c, "editor", `${/^[AEIOU]/.test(judgement) ? "an" : "a"} ${judgement}`);
      const parsed = parseAppendBody(body);
      if (!parsed.ok) {
        const count = parsed.errors.length;
        // The detail names the first few; `errors` lists them all.
        const named = parsed.errors.slice(0, DETAIL_NAMES).map((e) => `${e.path} ${e.message}`);
        const more = count > DETAIL_NAMES ? `; and ${count - DETAIL_NAMES} more (see errors)` : "";
        throw new ValidationError(
          `${count} field${count === 1 ? "" : "s"} failed: ${named.join("; ")}${more}; nothing was stored`,
          parsed.errors,
        );
      }
      const request: AppendRequest = {
        incidentId,
        envelopes: parsed.value,
        recordedBy,
        batched: parsed.batched,
        ...(ifMatch === undefined ? {} : { expectedVersion: ifMatch }),
      };
      try {
        await checkEditorial(incidentId, parsed.value, parsed.batched, {
          headVersion: async (id) => (await events.readHead(id)).version,
          summary: async (id) => (reader ? reader.summary(id, { at: "current" }) : null),
        });
        await evidence?.before(incidentId, parsed.value, parsed.batched);
      } catch (error) {
        // These checks read what the incident holds now (a link made, a date revised since): a
        // faithful repeat of an append already stored answers as the first time did instead.
        const replay = error instanceof LedgerError ? await events.replay(request) : null;
        if (!replay) throw error;
        return answered(c, replay);
      }
      const result = await appendEvents(request);
      // The other incident learns of a link when this one is projected: where that happens in this
      // process, the answer waits for it, so a read of the other incident right after shows it.
      if (pending && parsed.value.some((e) => e.type === "IncidentsLinked")) await pending.of(incidentId);
      return answered(c, result);
    },
  );

  app.get("/incidents/:incidentId/events", acceptQuery("after", "limit"), async (c) => {
    const incidentId = incidentToRead(c);
    const after = intQuery(c, "after", { min: 0, max: Number.MAX_SAFE_INTEGER, fallback: 0 }) as number;
    const limit = intQuery(c, "limit", { min: 1, max: 500, fallback: 100 }) as number;
    const page = await events.readPage(incidentId, after, limit);
    if (page.items.length === 0 && (await events.readHead(incidentId)).version === 0) {
      throw new NotFoundError(`no incident ${incidentId}`);
    }
    // Within the page's byte budget (answer-budget.ts): a page cut short says where to go on.
    const budget = byteBudget();
    let n = 0;
    while (n < page.items.length && budget.add(JSON.stringify(page.items[n]))) n++;
    if (n === page.items.length) return c.json(page);
    const shown = page.items.slice(0, n);
    return c.json({ items: shown, next: (shown[n - 1] as { version: number }).version });
  });

  return app;
}

/** An append's answer: 201 when it stored events, 200 for a replay, with the version as ETag. */
function answered(c: Context, result: AppendResult): Response {
  c.header("ETag", `"${result.version}"`);
  c.header("Location", `/incidents/${result.incidentId}`);
  const { created: _created, ...answer } = result;
  return c.json(answer, result.created ? 201 : 200);
}
