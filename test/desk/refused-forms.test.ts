import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fieldId } from "../../functions/http/desk/form-kit.js";
import type { DeskForm } from "../../functions/http/desk/forms/desk-form.js";
import { DESK_FORMS } from "../../functions/http/desk/forms/registry.js";
import type { LocalServer } from "../../functions/local/server.js";
import { opened, post, TOKEN } from "../support/archive.js";
import { formTokenOf, signInOverHttp, startDeskArchive } from "./desk-kit.js";

/**
 * Every desk form sent empty, over HTTP: the refused form names every field the event needs in
 * one answer (CONTRACT.md "The desk"), never the first few of them per sending, and stores nothing.
 */

const INCIDENT = "refused-forms-2022-04-08";

/** The fields each form's empty sending must mark, by the event type it records. */
const NAMED: Record<string, string[]> = {
  IncidentOpened: [
    "incidentId",
    "data.title",
    "data.kind",
    "data.location.name",
    "data.location.country",
    "source.publisher",
  ],
  CasualtiesReported: ["figures[0].category", "source.publisher", "attributedTo.name"],
  StatementMade: ["data.quote", "data.stance", "source.publisher", "attributedTo.name"],
  DenialIssued: ["data.claim", "source.publisher", "attributedTo.name"],
  ClaimAssessed: ["data.targetEventId", "data.verdict", "source.publisher", "attributedTo.name"],
  ReportRetracted: ["data.targetEventId", "data.reason", "source.publisher", "attributedTo.name"],
  EvidenceCaptured: ["file", "data.kind", "source.publisher"],
  VictimsRecorded: ["victims", "source.publisher", "attributedTo.name"],
  VictimsLinked: [
    "data.a",
    "data.b",
    "data.relation",
    "data.certainty",
    "source.publisher",
    "attributedTo.name",
  ],
  RedactionApplied: [
    "data.targetEventId",
    "data.pointers",
    "data.effect",
    "data.reason",
    "source.publisher",
    "attributedTo.name",
  ],
  IncidentRevised: ["data.title", "source.publisher"],
  IncidentGraded: ["data.grade", "source.publisher"],
  AttributionAssessed: ["data.perpetrator.name", "data.certainty", "source.publisher"],
  IncidentsLinked: ["data.otherIncidentId", "data.relation", "source.publisher"],
};

let archive: LocalServer;
let cookie: string;
let formToken: string;

beforeAll(async () => {
  archive = await startDeskArchive();
  expect((await post(archive.url, INCIDENT, opened("refused-forms-opened"))).status).toBe(201);
  // LEDGER_TOKEN holds every role: every form, the editors' too.
  cookie = await signInOverHttp(archive.url, TOKEN);
  formToken = await formTokenOf(archive.url, cookie);
});
afterAll(() => archive?.close());

const eventCount = async () =>
  ((await (await fetch(`${archive.url}/incidents/${INCIDENT}/events`)).json()) as { items: unknown[] }).items
    .length;

/** The form sent with nothing filled in: its anti-forgery token and its event id only. */
async function sendEmpty(form: DeskForm): Promise<{ status: number; html: string }> {
  const action = form.where === "new" ? "/desk/new" : `/desk/incidents/${INCIDENT}/${form.slug}`;
  const fields = { formToken, eventId: `empty-${form.slug}-form` };
  const body = new URLSearchParams(fields);
  const multipart = new FormData();
  for (const [name, value] of body) multipart.append(name, value);
  const answer = await fetch(`${archive.url}${action}`, {
    method: "POST",
    headers: { cookie, origin: archive.url },
    body: form.upload ? multipart : body,
    redirect: "manual",
  });
  return { status: answer.status, html: await answer.text() };
}

/** The fields the error summary links to, in its order. */
const summaryFields = (html: string) => {
  const summary = /<div class="error-summary"[\s\S]*?<\/div>/.exec(html)?.[0] ?? "";
  return [...summary.matchAll(/<a href="#([^"]+)"/g)].map((m) => m[1]);
};

describe("a desk form sent empty", () => {
  it("covers every form of the desk", () => {
    expect(Object.keys(NAMED).sort()).toEqual(DESK_FORMS.map((f) => f.type).sort());
  });

  it.each(DESK_FORMS.map((f) => [f.type, f] as const))(
    "the %s form names every field it needs at once, each marked beside it, and stores nothing",
    async (type, form) => {
      const before = await eventCount();
      const { status, html } = await sendEmpty(form);
      expect(status).toBe(422);
      const expected = (NAMED[type] ?? []).map(fieldId);
      expect([...summaryFields(html)].sort()).toEqual([...expected].sort());
      for (const id of expected) expect(html, id).toContain(`id="${id}-error"`);
      expect(await eventCount()).toBe(before);
    },
  );
});

describe("an opening with a number that cannot be read", () => {
  it("names the unreadable number and the incident's bad name in one answer, storing nothing", async () => {
    const before = (
      (await (await fetch(`${archive.url}/incidents?limit=100`)).json()) as { items: unknown[] }
    ).items.length;
    const answer = await fetch(`${archive.url}/desk/new`, {
      method: "POST",
      headers: { cookie, origin: archive.url },
      body: new URLSearchParams({
        formToken,
        eventId: "unreadable-latitude-form",
        incidentId: "Not A Name!",
        "data.title": "Shelling of a bus stop",
        "data.kind": "shelling",
        "data.location.name": "Bus stop",
        "data.location.country": "UA",
        "data.location.lat": "x",
        "data.location.lon": "37.5",
        "source.publisher": "Associated Press",
      }),
      redirect: "manual",
    });
    expect(answer.status).toBe(422);
    const html = await answer.text();
    expect(summaryFields(html)).toEqual([fieldId("incidentId"), fieldId("data.location.lat")]);
    const after = ((await (await fetch(`${archive.url}/incidents?limit=100`)).json()) as { items: unknown[] })
      .items.length;
    expect(after).toBe(before);
  });
});

describe("a desk form too large", () => {
  const form = (fields: Record<string, string>) =>
    new URLSearchParams({ formToken, "attributedTo.name": "Ministry", "source.publisher": "AP", ...fields });
  const send = async (slug: string, body: URLSearchParams) => {
    const answer = await fetch(`${archive.url}/desk/incidents/${INCIDENT}/${slug}`, {
      method: "POST",
      headers: { cookie, origin: archive.url },
      body,
      redirect: "manual",
    });
    return { status: answer.status, type: answer.headers.get("content-type"), html: await answer.text() };
  };
  const statement = (quote: string) =>
    form({ eventId: `large-${quote.length}`, "data.quote": quote, "data.stance": "neutral" });

  it("over the API's body bound only as a form (Cyrillic takes six characters a letter there) is judged as its event", async () => {
    const before = await eventCount();
    // Three texts of 15,000 Cyrillic letters: 270 KB as a form, 90 KB in the event's JSON,
    // whose claims are over their bound: refused field by field, every text kept.
    const text = "Київ".repeat(3_750);
    const denial = form({
      eventId: "large-denial",
      "data.claim": text,
      "data.counterClaim": text,
      "data.quote": text,
    });
    const { status, type, html } = await send("denial", denial);
    expect(status).toBe(422);
    expect(type).toMatch(/^text\/html/);
    expect(summaryFields(html)).toEqual(
      expect.arrayContaining([fieldId("data.claim"), fieldId("data.counterClaim")]),
    );
    expect(html.split(text).length - 1).toBe(3);
    expect(await eventCount()).toBe(before);
  });

  it("past the event's bound comes back as the form, the text kept, the API's refusal said", async () => {
    const before = await eventCount();
    const { status, type, html } = await send("statement", statement("x".repeat(300_000)));
    expect(status).toBe(413);
    expect(type).toMatch(/^text\/html/);
    expect(html).toContain('class="error-summary"');
    expect(html).toContain("x".repeat(300_000));
    expect(await eventCount()).toBe(before);
  });

  it("past what a form may be is a page saying so, not a problem document", async () => {
    const { status, type, html } = await send("statement", statement("x".repeat(900_000)));
    expect(status).toBe(413);
    expect(type).toMatch(/^text\/html/);
    expect(html).toContain("The form is too large");
  });
});
