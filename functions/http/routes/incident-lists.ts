import { type Context, Hono } from "hono";
import { ATTRIBUTIONS_KEPT, allAttributions, ownLinks } from "../../../events/editorial.js";
import { evidenceListRow, evidenceRow } from "../../../events/evidence.js";
import { allLinks } from "../../../events/links.js";
import { ownValue } from "../../../events/own-keys.js";
import type { StoredEvent } from "../../../events/stored-event.js";
import { SUMMARY_LIST_MAX } from "../../../events/summarize.js";
import { statementRow } from "../../../events/summary.js";
import { MalformedRequestError, NotFoundError } from "../../errors.js";
import type { IncidentReader } from "../../incident-reader.js";
import type { EventStore } from "../../store/event-store.js";
import { acceptQuery, incidentToRead, intQuery } from "../params.js";

export interface IncidentListRoutesDeps {
  events: EventStore;
  reader: IncidentReader;
}

/** Events read per page of …/statements at most: a page may come back short, with a cursor. */
export const STATEMENT_WINDOW = 200;

/** `{ items, nextCursor }` of one page of a whole list, the cursor being the next offset. */
function page<T>(c: Context, rows: readonly T[]) {
  const limit = intQuery(c, "limit", { min: 1, max: SUMMARY_LIST_MAX, fallback: SUMMARY_LIST_MAX }) as number;
  const offset = cursorOf(c, "offset");
  const items = rows.slice(offset, offset + limit);
  const next = offset + limit < rows.length ? String(offset + limit) : null;
  return c.json({ items, nextCursor: next });
}

function cursorOf(c: Context, what: string): number {
  const raw = c.req.query("cursor");
  if (raw === undefined) return 0;
  if (/^[1-9]\d{0,14}$/.test(raw)) return Number(raw);
  const message = `is not a cursor this archive gave out (${what}); pass nextCursor from the previous page unchanged`;
  throw new MalformedRequestError(`cursor ${message}`, [{ path: "query.cursor", message }]);
}

/**
 * The lists a summary bounds (events/summarize.ts), whole, a page at a time: each category's
 * sources, the denials, the retractions, the statements, the captures, the links and the
 * attributions. The first three come from the incident's projected state (bounded by what it
 * keeps); statements and captures, of which the state keeps only the latest, are read from the
 * events, at most STATEMENT_WINDOW of them per request; links and attributions from the state
 * and the editorial index (functions/editorial), which keeps them all.
 */
export function incidentListRoutes({ events, reader }: IncidentListRoutesDeps) {
  const app = new Hono();
  const current = async (c: Context) => {
    const incidentId = incidentToRead(c);
    const state = await reader.stateAt(incidentId, { at: "current" });
    if (!state) throw new NotFoundError(`no incident ${incidentId}`);
    return state;
  };

  app.get(
    "/incidents/:incidentId/casualties/:category/sources",
    acceptQuery("cursor", "limit"),
    async (c) => {
      const state = await current(c);
      const category = c.req.param("category");
      const rows = (await reader.lists(state)).sources.get(category);
      if (!rows || !ownValue(state.casualties, category))
        throw new NotFoundError(`incident ${state.incidentId} has no casualty category ${category}`);
      return page(c, rows);
    },
  );

  app.get("/incidents/:incidentId/denials", acceptQuery("cursor", "limit"), async (c) => {
    const state = await current(c);
    return page(c, (await reader.lists(state)).denials);
  });

  // Both directions, the most recent first: the summary's `links.items` whole. The incident's own
  // come from its state while it keeps every one (LINKS_KEPT), else with the editorial index's
  // item of them (the newer of each); those others posted, from the index.
  app.get("/incidents/:incidentId/links", acceptQuery("cursor", "limit"), async (c) => {
    const state = await current(c);
    const kept = state.editorial?.links ?? [];
    const indexed =
      (state.editorial?.linkCount ?? 0) > kept.length
        ? ((await reader.outgoingLinks(state.incidentId)) ?? [])
        : [];
    return page(c, allLinks(ownLinks(kept, indexed), await reader.incomingLinks(state.incidentId)));
  });

  // Each perpetrator's current assessment, the most recent first: the summary's
  // `attributions.latest` whole. From the state while it has never dropped one (it keeps
  // ATTRIBUTIONS_KEPT perpetrators), else with the editorial index's item of them all.
  app.get("/incidents/:incidentId/attributions", acceptQuery("cursor", "limit"), async (c) => {
    const state = await current(c);
    const kept = state.editorial?.attributions ?? [];
    const indexed =
      kept.length < ATTRIBUTIONS_KEPT ? [] : ((await reader.attributions(state.incidentId)) ?? []);
    return page(c, allAttributions(kept, indexed));
  });

  app.get("/incidents/:incidentId/retractions", acceptQuery("cursor", "limit"), async (c) => {
    const state = await current(c);
    return page(c, (await reader.lists(state)).retracted);
  });

  /**
   * Rows of one kind of event, newest first, read from the events (the state keeps only the
   * latest): the cursor is the version the next page reads below, and each request reads at most
   * STATEMENT_WINDOW events.
   */
  const newestFirst = async <T>(
    c: Context,
    row: (event: StoredEvent, retracted: Set<string>) => T | null,
  ) => {
    const state = await current(c);
    const limit = intQuery(c, "limit", {
      min: 1,
      max: SUMMARY_LIST_MAX,
      fallback: SUMMARY_LIST_MAX,
    }) as number;
    const below = Math.min(cursorOf(c, "version") || state.version + 1, state.version + 1);
    const retracted = new Set((await reader.lists(state)).retracted);
    const from = Math.max(0, below - 1 - STATEMENT_WINDOW);
    const window = await events.eventsBetween(state.incidentId, from, below - 1);
    const items: T[] = [];
    let lowest = below;
    for (const event of window.reverse()) {
      if (items.length === limit) break;
      lowest = event.version;
      const found = row(event, retracted);
      if (found !== null) items.push(found);
    }
    return c.json({ items, nextCursor: lowest > 1 ? String(lowest) : null });
  };

  app.get("/incidents/:incidentId/statements", acceptQuery("cursor", "limit"), (c) =>
    newestFirst(c, (event, retracted) =>
      event.type === "StatementMade" && !retracted.has(event.eventId) ? statementRow(event) : null,
    ),
  );

  // Every capture, as the summary's `evidence` counts them (a retracted one is still bytes held,
  // and says it is retracted), and restricted where the summary shows its bytes so.
  app.get("/incidents/:incidentId/evidence", acceptQuery("cursor", "limit"), async (c) => {
    const state = await current(c);
    const restricted = new Set(
      (state.evidence?.latest ?? []).filter((r) => r.access === "restricted").map((r) => r.sha256),
    );
    return newestFirst(c, (event, retracted) => {
      if (event.type !== "EvidenceCaptured") return null;
      const row = evidenceRow(event);
      return evidenceListRow({
        ...row,
        ...(restricted.has(row.sha256) ? { access: "restricted" as const } : {}),
        ...(retracted.has(event.eventId) ? { retracted: true } : {}),
      });
    });
  });

  return app;
}
