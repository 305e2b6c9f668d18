import type { Envelope } from "../../events/schemas.js";
import { parseEnvelope } from "../../events/validate.js";
import { type LocalServer, startLocalServer } from "../../functions/local/server.js";
import { silentLogger } from "../../functions/logger.js";
import { validatorFor } from "./openapi-validator.js";

export const TOKEN = "test-token-0123456789";

/** What a browser's navigation sends as `Accept`: pages answer it with pages, problems too. */
export const BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

/** An envelope as the API would accept it, for tests that append through the event store. */
export function envelope(raw: unknown): Envelope {
  const parsed = parseEnvelope(raw);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return parsed.value;
}

/** A whole archive on loopback: in-memory dynalite, real HTTP server, in-process projector. */
export async function startArchive(options: { dataDir?: string } = {}): Promise<LocalServer> {
  return startLocalServer({
    port: 0,
    dynamoPort: 0,
    token: TOKEN,
    log: silentLogger,
    writer: "test-writer",
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
  });
}

export interface Answer {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests read answers loosely and assert on them.
  body: any;
}

/**
 * One request to a running archive. Every answer is checked against the OpenAPI document that
 * archive serves (status, media type, body schema, headers): an answer the document does not
 * describe fails the test that received it.
 */
export async function call(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...(method === "POST" ? { authorization: `Bearer ${TOKEN}` } : {}),
      ...headers,
    },
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  const problems = (await validatorFor(base)).check({
    method,
    path,
    status: response.status,
    headers: response.headers,
    text,
  });
  if (problems.length > 0) {
    throw new Error(`the answer departs from /openapi.json:\n${problems.slice(0, 10).join("\n")}`);
  }
  let parsed: unknown = text;
  try {
    parsed = text === "" ? null : JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, headers: response.headers, body: parsed };
}

export const post = (base: string, incidentId: string, body: unknown, headers: Record<string, string> = {}) =>
  call(base, "POST", `/incidents/${incidentId}/events`, body, headers);

export const AP = { publisher: "Associated Press" };

export const opened = (eventId?: string, data: Record<string, unknown> = {}) => ({
  ...(eventId ? { eventId } : {}),
  type: "IncidentOpened",
  source: AP,
  data: {
    title: "Missile strike on a station",
    kind: "missile-strike",
    location: { name: "Kramatorsk", country: "UA" },
    ...data,
  },
});

export const casualties = (figures: Record<string, unknown>, name = "Pavlo Kyrylenko", eventId?: string) => ({
  ...(eventId ? { eventId } : {}),
  type: "CasualtiesReported",
  source: AP,
  attributedTo: { name },
  data: { figures },
});

/** An editors' link from the incident it is posted on to `otherIncidentId`. */
export const linked = (otherIncidentId: string, relation: string) => ({
  type: "IncidentsLinked",
  source: { publisher: "incident-ledger" },
  attributedTo: { name: "editors" },
  data: { otherIncidentId, relation },
});
