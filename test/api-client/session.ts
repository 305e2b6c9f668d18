import createClient from "openapi-fetch";
import type { components, paths } from "./generated/ledger-api.js";

/**
 * A user's session through a client generated from /openapi.json (openapi-typescript +
 * openapi-fetch), written the way a user would write it: no casts, no `any`, every field read
 * through the generated types. The test compiles this file with `tsc --strict` against the
 * freshly generated types, then runs it against a real server.
 */
type Schemas = components["schemas"];

export interface SessionLog {
  statuses: Record<string, number>;
  etag: string | null;
  location: string | null;
  conflictCurrentVersion: number | undefined;
  placeName: string | undefined;
  killedLow: number | null | undefined;
  latestQuote: string | undefined;
  denialQuote: string | undefined;
  figuresInEvents: number;
  eventTypes: string[];
  pagesRead: number;
  listedIds: string[];
  headHash: string | undefined;
  healthy: boolean | undefined;
}

function need<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what}: no data`);
  return value;
}

export async function userSession(baseUrl: string, token: string, incidentId: string): Promise<SessionLog> {
  const api = createClient<paths>({ baseUrl });
  const headers = { Authorization: `Bearer ${token}` };
  const path = { incidentId };
  const statuses: Record<string, number> = {};

  // Open the incident: If-Match "0" says it must not exist yet.
  const opening: Schemas["IncidentOpened"] = {
    eventId: `${incidentId}-opened`,
    type: "IncidentOpened",
    source: { publisher: "Associated Press", url: "https://apnews.com/article/example" },
    data: {
      title: "Strike on a market",
      kind: "missile-strike",
      location: { name: "Central market", country: "UA", lat: 48.7, lon: 37.6 },
      occurredOn: "2024-01-01",
      description: "A missile hit the central market at midday.",
    },
  };
  const open = await api.POST("/incidents/{incidentId}/events", {
    params: { path, header: { "If-Match": '"0"' } },
    headers,
    body: opening,
  });
  statuses.open = open.response.status;

  // Report a toll, then post the very same report again (a retry): the first answer comes back.
  const report: Schemas["CasualtiesReported"] = {
    eventId: `${incidentId}-governor-toll`,
    type: "CasualtiesReported",
    source: { publisher: "Associated Press" },
    attributedTo: { name: "Regional governor", side: "Ukraine" },
    data: {
      figures: {
        killed: { value: 50, qualifier: "at-least" },
        injured: { qualifier: "dozens", text: "many dozens" },
        childrenKilled: { min: 3, max: 5 },
      },
    },
  };
  const reported = await api.POST("/incidents/{incidentId}/events", {
    params: { path },
    headers,
    body: report,
  });
  statuses.report = reported.response.status;
  const reposted = await api.POST("/incidents/{incidentId}/events", {
    params: { path },
    headers,
    body: report,
  });
  statuses.repost = reposted.response.status;

  // A statement and a denial, all or nothing.
  const batch = await api.POST("/incidents/{incidentId}/events", {
    params: { path },
    headers,
    body: {
      events: [
        {
          eventId: `${incidentId}-minister`,
          type: "StatementMade",
          source: { publisher: "Reuters" },
          attributedTo: { name: "Foreign minister", side: "Ukraine" },
          data: { quote: "A deliberate attack on civilians.", stance: "accuses", accuses: "Russia" },
        },
        {
          eventId: `${incidentId}-denial`,
          type: "DenialIssued",
          source: { publisher: "TASS" },
          attributedTo: { name: "Defence ministry spokesman", side: "Russia" },
          data: {
            claim: "that its forces struck the market",
            quote: "Our forces did not strike the market.",
          },
        },
      ],
    },
  });
  statuses.batch = batch.response.status;
  const appended = need(batch.data, "batch");
  const etag = batch.response.headers.get("ETag");
  const location = batch.response.headers.get("Location");

  // A stale If-Match: the 409's problem document says where the incident is.
  const stale = await api.POST("/incidents/{incidentId}/events", {
    params: { path, header: { "If-Match": '"1"' } },
    headers,
    body: { ...report, eventId: `${incidentId}-stale` },
  });
  statuses.stale = stale.response.status;

  // Read my own write: a summary that reflects at least the batch.
  const read = await api.GET("/incidents/{incidentId}", {
    params: { path, query: { minVersion: appended.version } },
  });
  statuses.read = read.response.status;
  const summary = need(read.data, "summary");

  // The listing, one page at a time.
  const listedIds: string[] = [];
  let cursor: string | undefined;
  for (;;) {
    const list = await api.GET("/incidents", {
      params: { query: { kind: "missile-strike", limit: 1, ...(cursor ? { cursor } : {}) } },
    });
    statuses.list = list.response.status;
    const page = need(list.data, "list");
    listedIds.push(...page.items.map((s) => s.incidentId));
    if (page.nextCursor === null) break;
    cursor = page.nextCursor;
  }

  // The events, page by page, narrowed by type.
  const eventTypes: string[] = [];
  let figuresInEvents = 0;
  let pagesRead = 0;
  let after = 0;
  for (;;) {
    const events = await api.GET("/incidents/{incidentId}/events", {
      params: { path, query: { after, limit: 2 } },
    });
    statuses.page = events.response.status;
    const page = need(events.data, "events");
    pagesRead += 1;
    for (const event of page.items) {
      eventTypes.push(event.type);
      if (event.type === "CasualtiesReported") figuresInEvents += Object.keys(event.data.figures).length;
    }
    if (page.next === null) break;
    after = page.next;
  }

  const verify = await api.GET("/incidents/{incidentId}/verify", { params: { path } });
  statuses.verify = verify.response.status;
  const check = need(verify.data, "verify");
  const health = await api.GET("/health");

  return {
    statuses,
    etag,
    location,
    conflictCurrentVersion: stale.error?.currentVersion,
    placeName: summary.location?.name,
    killedLow: summary.casualties.killed?.low,
    latestQuote: summary.statements.latest[0]?.quote,
    denialQuote: summary.denials[0]?.quote,
    figuresInEvents,
    eventTypes,
    pagesRead,
    listedIds,
    headHash: check.ok ? check.headHash : undefined,
    healthy: health.data?.ok,
  };
}
