import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ScanCommand } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkDisclosure, decodeDisclosure, encodeDisclosure } from "../../events/sealing.js";
import type { StoredEvent } from "../../events/stored-event.js";
import { type LocalServer, startLocalServer } from "../../functions/local/server.js";
import { createLogger } from "../../functions/logger.js";
import { DisclosureStore } from "../../functions/people/disclosure-store.js";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import { peopleTables } from "../../functions/store/table-design.js";
import { AP, call, opened, post, TOKEN } from "../support/archive.js";
import { runVerify } from "../support/run-verify.js";

/** How a page names the private person of these tests: their pseudonym, linked to its source page. */
const PSEUDONYM = 'private source <a href="/source/witness-7" class="source-link"><bdi>witness-7</bdi></a>';

/**
 * CONTRACT.md "People" from outside: sealed values, their disclosures by role, the victims block,
 * private sources, redactions, and every refusal storing nothing.
 */
const WRITER = "writer-only-token-0123456789";
const READER = "restricted-reader-token-0123";
const as = (token: string) => ({ authorization: `Bearer ${token}` });

let archive: LocalServer;
/** Every line the server logs (debug included): no sealed value may be in one. */
const logLines: string[] = [];
beforeAll(async () => {
  archive = await startLocalServer({
    port: 0,
    dynamoPort: 0,
    token: TOKEN,
    log: createLogger("debug", (line) => logLines.push(line)),
    writer: "test-writer",
    users: [
      { name: "Wanda Writer", token: WRITER, roles: ["writer"] },
      { name: "Rita Reader", token: READER, roles: ["restricted-reader"] },
    ],
  });
});
afterAll(async () => {
  await archive.close();
  // Guarantee 7: of everything logged while the tests above wrote, read and failed, no line
  // holds a sealed value.
  expect(logLines.length).toBeGreaterThan(50);
  for (const secret of [
    "Olena",
    "Bondar",
    "Kovalenko",
    "Platform 2",
    "Someone Else",
    "station worker",
    "shift lead",
  ])
    expect(logLines.join("\n")).not.toContain(secret);
});

const victims = (eventId: string, list: unknown[], disclose?: Record<string, string>) => ({
  eventId,
  type: "VictimsRecorded",
  source: AP,
  attributedTo: { name: "Regional prosecutor's office" },
  data: { victims: list, ...(disclose ? { disclose } : {}) },
});

const LIST = [
  { name: "Olena Ivanenko", age: 34, sex: "female", status: "civilian", ageGroup: "adult" },
  { name: "Petro Bondar", nameVariants: ["P. Bondar"], sex: "male", status: "civilian", place: "Platform 2" },
  { sex: "male", ageGroup: "child", notes: "identified by a relative" },
];

async function events(incidentId: string): Promise<{ items: StoredEvent[]; text: string }> {
  const response = await fetch(`${archive.url}/incidents/${incidentId}/events?limit=500`);
  const text = await response.text();
  return { items: JSON.parse(text).items, text };
}
const head = async (incidentId: string) => (await events(incidentId)).items.length;
const disclosures = async (incidentId: string, eventId: string, headers: Record<string, string> = {}) =>
  call(archive.url, "GET", `/incidents/${incidentId}/events/${eventId}/disclosures`, undefined, headers);

/** The disclosures table's items of an incident, read from the table itself (empty packs included). */
async function heldItemsOf(incidentId: string) {
  const db = createDynamoClient(archive.dynamoEndpoint);
  const table = await db.send(new ScanCommand({ TableName: peopleTables(archive.tables).disclosures }));
  db.destroy();
  return (table.Items ?? []).filter((i) => i.incidentId?.S === incidentId);
}

/** Every value the disclosures table holds for an incident, each pack opened. */
async function heldValues(incidentId: string): Promise<unknown[]> {
  return (await heldItemsOf(incidentId))
    .flatMap((i) =>
      i.entries?.S
        ? (JSON.parse(i.entries.S) as string[][]).map((e) => e[3] as string)
        : [i.disclosure?.S ?? ""],
    )
    .map((d) => decodeDisclosure(d)?.value);
}

/** How many items the disclosures table holds for an incident. */
const heldItems = async (incidentId: string) => (await heldItemsOf(incidentId)).length;

/** The audit lines logged for restricted disclosure reads of one event. */
function auditLines(incidentId: string, eventId: string): Record<string, unknown>[] {
  return logLines
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter(
      (l) => l.audit === "restricted-disclosure-read" && l.incidentId === incidentId && l.eventId === eventId,
    );
}

async function opening(incidentId: string) {
  expect((await post(archive.url, incidentId, opened())).status).toBe(201);
}

describe("recording victims", () => {
  const id = "people-record";
  beforeAll(async () => {
    await opening(id);
    const answer = await post(
      archive.url,
      id,
      victims("victims-list-1", LIST, { "/data/victims/0/name": "public" }),
    );
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  });

  it("stores commitments in place of the sealed fields: no name, age, place or note in the record", async () => {
    const { items, text } = await events(id);
    for (const secret of ["Olena", "Bondar", "Platform 2", "relative", '"age":34'])
      expect(text).not.toContain(secret);
    const event = items[1] as StoredEvent;
    expect(event.data.victims[0]).toMatchObject({ sex: "female", status: "civilian", ageGroup: "adult" });
    expect(event.data.victims[0].name.$sealed).toMatch(/^sha-256:[A-Za-z0-9_-]{43}$/);
    expect(event.data.victims[1].nameVariants.$sealed).toBeDefined();
    const verify = await call(archive.url, "GET", `/incidents/${id}/verify`);
    expect(verify.body).toMatchObject({ ok: true, version: 2 });
  });

  it("gives anyone the public disclosures, cached publicly, each opening its commitment", async () => {
    const { items } = await events(id);
    const answer = await disclosures(id, "victims-list-1");
    expect(answer.status).toBe(200);
    expect(answer.body.items.map((i: { pointer: string }) => i.pointer)).toEqual(["/data/victims/0/name"]);
    const [item] = answer.body.items;
    expect(decodeDisclosure(item.disclosure)?.value).toBe("Olena Ivanenko");
    expect(checkDisclosure(items[1], item.pointer, item.disclosure)).toEqual({ ok: true });
    expect(answer.headers.get("cache-control")).not.toContain("private");
  });

  it("gives a restricted-reader the restricted ones too, privately, and records the read", async () => {
    const answer = await disclosures(id, "victims-list-1", as(READER));
    expect(answer.body.items).toHaveLength(6);
    expect(
      answer.body.items.filter((i: { visibility: string }) => i.visibility === "restricted"),
    ).toHaveLength(5);
    expect(answer.headers.get("cache-control")).toBe("private, no-store");
    const db = createDynamoClient(archive.dynamoEndpoint);
    const audit = await db.send(new ScanCommand({ TableName: peopleTables(archive.tables).audit }));
    db.destroy();
    const read = (audit.Items ?? []).find((i) => i.who?.S === "Rita Reader");
    expect(read?.eventId?.S).toBe("victims-list-1");
    expect(read?.pointers?.L).toHaveLength(5);
    expect(JSON.stringify(audit.Items)).not.toContain("Bondar");
    // …and logs it, as the line the alarm on bursts of restricted reads counts: pointers, never values.
    const [line, ...more] = auditLines(id, "victims-list-1");
    expect(more).toEqual([]);
    expect(Object.keys(line ?? {}).sort()).toEqual(
      [
        "at",
        "audit",
        "eventId",
        "incidentId",
        "level",
        "message",
        "pointers",
        "reader",
        "time",
        "via",
      ].sort(),
    );
    expect(line).toMatchObject({
      level: "info",
      reader: "Rita Reader",
      incidentId: id,
      eventId: "victims-list-1",
      via: "GET /incidents/{incidentId}/events/{eventId}/disclosures",
    });
    // The same time as the record (whose sort key adds a unique suffix to it).
    expect(read?.at?.S?.startsWith(`${line?.at}#`)).toBe(true);
    const restrictedPointers = answer.body.items
      .filter((i: { visibility: string }) => i.visibility === "restricted")
      .map((i: { pointer: string }) => i.pointer);
    expect(line?.pointers).toEqual(restrictedPointers);
    // The clock's fields aside (a time may hold any two digits, as an age does), no value is in it.
    const { time: _time, at: _at, ...said } = line ?? {};
    const logged = JSON.stringify(said);
    for (const item of answer.body.items as { disclosure: string }[]) {
      expect(logged).not.toContain(item.disclosure);
      expect(logged).not.toContain(JSON.stringify(decodeDisclosure(item.disclosure)?.value));
    }
    for (const secret of ["Olena", "Bondar", "Platform 2", "relative"]) expect(logged).not.toContain(secret);
    // Public reads are not restricted reads: nobody's read of the public ones logged a line.
    const publicAnswer = await disclosures(id, "victims-list-1");
    expect(publicAnswer.status).toBe(200);
    expect(auditLines(id, "victims-list-1")).toHaveLength(1);
  });

  it("a writer without the role sees the public ones only; wrong credentials are a 401", async () => {
    expect((await disclosures(id, "victims-list-1", as(WRITER))).body.items).toHaveLength(1);
    expect((await disclosures(id, "victims-list-1", as("not-a-user-token-000000"))).status).toBe(401);
    expect((await disclosures(id, "no-such-event-1")).status).toBe(404);
  });

  it("counts victims in the summary, never a sealed value, and merges same-person links", async () => {
    const link = await post(archive.url, id, {
      eventId: "victims-link-1",
      type: "VictimsLinked",
      source: AP,
      attributedTo: { name: "Archive editor" },
      data: {
        a: { eventId: "victims-list-1", index: 1 },
        b: { eventId: "victims-list-1", index: 2 },
        relation: "same-person",
        certainty: "medium",
      },
    });
    expect(link.status, JSON.stringify(link.body)).toBe(201);
    const summary = await call(archive.url, "GET", `/incidents/${id}?minVersion=3`);
    expect(summary.body.victims).toEqual({
      recorded: 3,
      distinct: 2,
      byStatus: { civilian: 2, unknown: 1 },
      bySex: { female: 1, male: 2 },
      byAgeGroup: { adult: 1, child: 1, unknown: 1 },
      named: 2,
    });
    expect(JSON.stringify(summary.body)).not.toContain("Olena");
  });

  it("the incident page lists victims with public values; a restricted-reader's page shows the rest, privately", async () => {
    const open = await fetch(`${archive.url}/view/${id}`);
    const page = await open.text();
    expect(page).toContain("Olena Ivanenko");
    expect(page).not.toContain("Bondar");
    expect(page).toContain("name: withheld");
    // People numbered from 1, as the desk's forms name them ("Person 1").
    expect(page).toMatch(/<th scope="col">Person<\/th>[\s\S]*?<tbody><tr><td>1<\/td>/);
    expect(page).not.toContain("data-restricted");
    expect(open.headers.get("cache-control")).not.toContain("private");
    const signedIn = await fetch(`${archive.url}/view/${id}`, { headers: as(READER) });
    const restricted = await signedIn.text();
    expect(restricted).toContain("Petro Bondar");
    expect(restricted).toContain("data-restricted");
    expect(signedIn.headers.get("cache-control")).toBe("private, no-store");
    const db = createDynamoClient(archive.dynamoEndpoint);
    const audit = await db.send(new ScanCommand({ TableName: peopleTables(archive.tables).audit }));
    db.destroy();
    expect(
      (audit.Items ?? []).some((i) => i.via?.S === "GET /view/{incidentId}" && i.who?.S === "Rita Reader"),
    ).toBe(true);
  });

  it("exports the public disclosures only, and the events export carries commitments", async () => {
    const text = await (await fetch(`${archive.url}/export/disclosures.ndjson`)).text();
    const lines = text
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const mine = lines.filter((l) => l.incidentId === id);
    expect(mine).toEqual([
      {
        incidentId: id,
        eventId: "victims-list-1",
        pointer: "/data/victims/0/name",
        disclosure: expect.any(String),
      },
    ]);
  });
});

describe("the disclosures export at a tree size (a release's link)", () => {
  it("holds the disclosures of events within the first N leaves only", async () => {
    const id = "people-record";
    const proof = (await call(archive.url, "GET", `/incidents/${id}/events/victims-list-1/proof?wait=true`))
      .body;
    const at = async (size: number) =>
      (await (await fetch(`${archive.url}/export/disclosures.ndjson?treeSize=${size}`)).text()).includes(
        `"eventId":"victims-list-1"`,
      );
    expect(await at(proof.index)).toBe(false);
    expect(await at(proof.index + 1)).toBe(true);
    expect((await fetch(`${archive.url}/export/disclosures.ndjson?treeSize=999999999`)).status).toBe(400);
    // Saved beside the other exports at that size, its file name says the size too.
    const cut = await fetch(`${archive.url}/export/disclosures.ndjson?treeSize=${proof.index + 1}`);
    expect(cut.headers.get("content-disposition")).toBe(
      `attachment; filename="disclosures-${proof.index + 1}.ndjson"`,
    );
    await cut.body?.cancel();
  });
});

describe("retrying an append with sealed values", () => {
  const id = "people-retry";
  beforeAll(() => opening(id));

  it("the same eventId and content again answers the first answer (200), with the same stored event", async () => {
    const first = await post(archive.url, id, victims("retry-list-1", LIST));
    const before = (await events(id)).text;
    const again = await post(archive.url, id, victims("retry-list-1", LIST));
    expect(first.status).toBe(201);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect((await events(id)).text).toBe(before);
  });

  it("the same eventId with another sealed value is a 409: nothing is stored, and the table keeps no disclosure of it", async () => {
    const before = await heldValues(id);
    const other = structuredClone(LIST);
    (other[0] as { name: string }).name = "Someone Else";
    const answer = await post(archive.url, id, victims("retry-list-1", other));
    expect(answer.status).toBe(409);
    expect(await head(id)).toBe(2);
    expect(
      (await disclosures(id, "retry-list-1", as(READER))).body.items.map(
        (i: { disclosure: string }) => decodeDisclosure(i.disclosure)?.value,
      ),
    ).not.toContain("Someone Else");
    // Its values were written before the store refused it; the refusal took them again.
    expect(await heldValues(id)).not.toContain("Someone Else");
    expect(await heldValues(id)).toEqual(before);
  });

  it("a private person's statement again with another name is a 409, and the table keeps no disclosure of it", async () => {
    const said = (name: string) => ({
      eventId: "retry-said-1",
      type: "StatementMade",
      source: AP,
      attributedTo: { name, role: "station worker", kind: "private", ref: "witness-9" },
      data: { quote: "The platform was full.", stance: "neutral" },
    });
    expect((await post(archive.url, id, said("Ivan Kovalenko"))).status).toBe(201);
    const answer = await post(archive.url, id, said("Someone Else"));
    expect(answer.status).toBe(409);
    expect(await heldValues(id)).toContain("Ivan Kovalenko");
    expect(await heldValues(id)).not.toContain("Someone Else");
  });

  it("a repeat tells no sealed value: by another writer it is a 409 whatever it holds, and a wrong value writes nothing", async () => {
    const said = (name: string) => ({
      eventId: "retry-said-2",
      type: "StatementMade",
      source: AP,
      attributedTo: { name, kind: "private", ref: "witness-10" },
      data: { quote: "We ran to the underpass.", stance: "neutral" },
    });
    expect((await post(archive.url, id, said("Halyna Petrenko"))).status).toBe(201);
    const items = await heldItems(id);
    // Another writer meets the same answer for the right name and for a wrong one.
    const right = await post(archive.url, id, said("Halyna Petrenko"), as(WRITER));
    const wrong = await post(archive.url, id, said("Someone Else"), as(WRITER));
    expect([right.status, wrong.status]).toEqual([409, 409]);
    expect(right.body.errors).toEqual(wrong.body.errors);
    expect(right.body.errors[0]).toMatchObject({
      path: "eventId",
      message: expect.stringContaining("another writer"),
    });
    // The writer who recorded it: a wrong name again and again, then the event as it was.
    for (let i = 0; i < 3; i++) expect((await post(archive.url, id, said("Someone Else"))).status).toBe(409);
    expect((await post(archive.url, id, said("Halyna Petrenko"))).status).toBe(200);
    // Not one of those tries left an item behind (each would slow every later read of the event).
    expect(await heldItems(id)).toBe(items);
  });

  it("sealed events posted without an eventId and refused (If-Match 409, a batch's 422) leave no disclosure", async () => {
    const refused = [{ name: "Someone Else", sex: "female" }];
    const { eventId: _unused, ...unnamed } = victims("unused-list", refused);
    const stale = await post(archive.url, id, unnamed, { "if-match": '"1"' });
    expect(stale.status, JSON.stringify(stale.body)).toBe(409);
    const batch = {
      events: [
        unnamed,
        {
          type: "ReportRetracted",
          source: AP,
          attributedTo: { name: "Associated Press" },
          data: { targetEventId: "no-such-event", reason: "x" },
        },
      ],
    };
    const invalid = await post(archive.url, id, batch);
    expect(invalid.status, JSON.stringify(invalid.body)).toBe(422);
    expect(await heldValues(id)).not.toContain("Someone Else");
  });

  it("a client's eventId refused unstored keeps its values for a retry; once the eventId is stored with others, they go", async () => {
    const attempt = (name: string) => victims("retry-later-1", [{ name, sex: "male" }]);
    const batch = {
      events: [
        attempt("Someone Else"),
        {
          type: "ReportRetracted",
          source: AP,
          attributedTo: { name: "Associated Press" },
          data: { targetEventId: "no-such-event", reason: "x" },
        },
      ],
    };
    expect((await post(archive.url, id, batch)).status).toBe(422);
    // A retry of the same eventId may rely on them: the orphan sweep, or the append that stores it, takes them.
    expect(await heldValues(id)).toContain("Someone Else");
    expect((await post(archive.url, id, attempt("Petro Bondar"))).status).toBe(201);
    expect(await heldValues(id)).not.toContain("Someone Else");
    expect(await heldValues(id)).toContain("Petro Bondar");
  });
});

describe("racing retries of an append with sealed values", () => {
  it("two identical posts at once, under the same If-Match, store one event and answer 201 and 200", async () => {
    const race = "people-race";
    await opening(race);
    for (let round = 0; round < 4; round++) {
      const version = await head(race);
      const body = victims(`retry-race-${round}`, LIST);
      const answers = await Promise.all(
        [0, 1].map(() => post(archive.url, race, body, { "if-match": `"${version}"` })),
      );
      expect(answers.map((a) => a.status).sort(), JSON.stringify(answers.map((a) => a.body))).toEqual([
        200, 201,
      ]);
      expect(await head(race)).toBe(version + 1);
    }
  });

  it("the same event posted at once by two writers stores one and refuses the other: never a 200 that would confirm its values", async () => {
    const race = "people-race-writers";
    await opening(race);
    for (let round = 0; round < 6; round++) {
      const body = victims(`writers-race-${round}`, LIST);
      const answers = await Promise.all([
        post(archive.url, race, body),
        post(archive.url, race, body, as(WRITER)),
      ]);
      expect(answers.map((a) => a.status).sort(), JSON.stringify(answers.map((a) => a.body))).toEqual([
        201, 409,
      ]);
    }
    expect(await head(race)).toBe(7);
  });
});

describe("judging whether two entries are one person", () => {
  const id = "people-links";
  const judge = (eventId: string, a: [string, number], b: [string, number], relation = "same-person") => ({
    eventId,
    type: "VictimsLinked",
    source: AP,
    attributedTo: { name: "Archive editor" },
    data: {
      a: { eventId: a[0], index: a[1] },
      b: { eventId: b[0], index: b[1] },
      relation,
      certainty: "medium",
    },
  });
  const retract = (eventId: string, targetEventId: string) => ({
    eventId,
    type: "ReportRetracted",
    source: AP,
    attributedTo: { name: "Regional prosecutor's office" },
    data: { targetEventId, reason: "recorded twice" },
  });
  const distinct = async () => {
    const version = await head(id);
    return (await call(archive.url, "GET", `/incidents/${id}?minVersion=${version}`)).body.victims.distinct;
  };
  beforeAll(async () => {
    await opening(id);
    for (const list of [
      victims("links-list-x", [{ sex: "male" }, { sex: "female" }]),
      victims("links-list-y", [{ sex: "male" }]),
      retract("links-retract-y", "links-list-y"),
    ])
      expect((await post(archive.url, id, list)).status).toBe(201);
  });

  it("a link to an entry of a retracted list is a 422 naming the side, stored or in the same batch; distinct stays", async () => {
    const before = await head(id);
    const late = await post(
      archive.url,
      id,
      judge("links-to-retracted", ["links-list-x", 0], ["links-list-y", 0]),
    );
    expect(late.status, JSON.stringify(late.body)).toBe(422);
    expect(late.body.errors.map((e: { path: string }) => e.path)).toEqual(["data.b.eventId"]);
    expect(late.body.errors[0].message).toContain("retracted");
    const batch = {
      events: [
        victims("links-list-z", [{ sex: "female" }]),
        retract("links-retract-z", "links-list-z"),
        judge("links-to-z-in-batch", ["links-list-z", 0], ["links-list-x", 1]),
      ],
    };
    const inBatch = await post(archive.url, id, batch);
    expect(inBatch.status, JSON.stringify(inBatch.body)).toBe(422);
    expect(inBatch.body.errors.map((e: { path: string }) => e.path)).toEqual(["events[2].data.a.eventId"]);
    expect(await head(id)).toBe(before);
    expect(await distinct()).toBe(2);
  });

  it("the latest judgement on a pair holds: not-same-person parts what a same-person link merged", async () => {
    const same = await post(archive.url, id, judge("links-same-x", ["links-list-x", 0], ["links-list-x", 1]));
    expect(same.status, JSON.stringify(same.body)).toBe(201);
    expect(await distinct()).toBe(1);
    const apart = judge("links-apart-x", ["links-list-x", 1], ["links-list-x", 0], "not-same-person");
    expect((await post(archive.url, id, apart)).status).toBe(201);
    expect(await distinct()).toBe(2);
  });
});

describe("private sources", () => {
  const id = "people-private";
  beforeAll(() => opening(id));

  it("seals a private person's name and role, and keys their figures on ref", async () => {
    const witness = (eventId: string, name: string, killed: number) => ({
      eventId,
      type: "CasualtiesReported",
      source: AP,
      attributedTo: { name, role: "station worker", kind: "private", ref: "witness-7" },
      data: { figures: { killed: { value: killed, qualifier: "at-least" } } },
    });
    expect((await post(archive.url, id, witness("private-one-1", "Ivan Kovalenko", 30))).status).toBe(201);
    expect((await post(archive.url, id, witness("private-two-1", "I. Kovalenko", 40))).status).toBe(201);
    const denial = {
      eventId: "private-denial",
      type: "DenialIssued",
      source: AP,
      attributedTo: { name: "Ivan Kovalenko", role: "shift lead", kind: "private", ref: "witness-7" },
      data: { claim: "that the platform was empty" },
    };
    expect((await post(archive.url, id, denial)).status).toBe(201);
    const { text, items } = await events(id);
    expect(text).not.toContain("Kovalenko");
    expect(text).not.toContain("station worker");
    expect(text).not.toContain("shift lead");
    expect(items[1]?.attributedTo).toMatchObject({
      kind: "private",
      ref: "witness-7",
      name: { $sealed: expect.any(String) },
    });
    const summary = await call(archive.url, "GET", `/incidents/${id}?minVersion=4`);
    expect(summary.body.casualties.killed.bySource).toHaveLength(1);
    expect(summary.body.casualties.killed.low).toBe(40);
    expect(JSON.stringify(summary.body)).not.toContain("Kovalenko");
    const page = await (await fetch(`${archive.url}/view/${id}`)).text();
    expect(page).not.toContain("Kovalenko");
    expect(page).toContain(`${PSEUDONYM} denies`);
    expect(page).not.toContain("[object Object]");
    // Asked for by the sealed name, a source finds nothing, and the logs keep the route, not
    // the name asked for (the afterAll reads every log line).
    for (const path of ["/sources/Ivan%20Kovalenko", "/source/Ivan%20Kovalenko"]) {
      const asked = await fetch(`${archive.url}${path}`);
      expect(asked.status, path).toBe(404);
      expect(
        logLines.some((line) => line.includes(`"path":"${path.slice(0, path.indexOf("/", 1))}/{name}"`)),
      ).toBe(true);
    }
    for (const path of ["/export/events.ndjson", "/feed?limit=1000"]) {
      expect(await (await fetch(`${archive.url}${path}`)).text()).not.toContain("Kovalenko");
    }
  });

  it("a restricted-reader's incident page names the private person beside the pseudonym, each read recorded; a writer's does not", async () => {
    const audited = async () => {
      const db = createDynamoClient(archive.dynamoEndpoint);
      const audit = await db.send(new ScanCommand({ TableName: peopleTables(archive.tables).audit }));
      db.destroy();
      return (audit.Items ?? []).filter((i) => i.incidentId?.S === id && i.who?.S === "Rita Reader");
    };
    const before = (await audited()).length;
    const restricted = await (await fetch(`${archive.url}/view/${id}`, { headers: as(READER) })).text();
    // The denial's card, the casualty row and the timeline each name the person their event does.
    // The denial's heading names them; its attribution line gives the role too.
    expect(restricted).toContain(`${PSEUDONYM}: <bdi>Ivan Kovalenko</bdi> (restricted) denies`);
    expect(restricted).toContain(
      `${PSEUDONYM}: <bdi>Ivan Kovalenko</bdi>, <bdi>shift lead</bdi> (restricted)`,
    );
    expect(restricted).toContain(
      `${PSEUDONYM}: <bdi>I. Kovalenko</bdi>, <bdi>station worker</bdi> (restricted)`,
    );
    // The pseudonym leads to the source page; the opened name is never in a link (nor in any URL a log keeps).
    expect([...restricted.matchAll(/href="([^"]*)"/g)].map((m) => m[1]).join(" ")).not.toContain("Kovalenko");
    const reads = (await audited()).slice(before);
    expect(reads.map((i) => i.eventId?.S).sort()).toEqual([
      "private-denial",
      "private-one-1",
      "private-two-1",
    ]);
    for (const read of reads)
      expect(read.pointers?.L?.map((p) => p.S).every((p) => p?.startsWith("/attributedTo/"))).toBe(true);
    // Each read recorded is logged too, from the page's route.
    for (const read of reads) {
      const logged = auditLines(id, read.eventId?.S ?? "").filter((l) => read.at?.S?.startsWith(`${l.at}#`));
      expect(logged).toHaveLength(1);
      expect(logged[0]).toMatchObject({ reader: "Rita Reader", via: read.via?.S });
      expect(JSON.stringify(logged[0])).not.toContain("Kovalenko");
    }
    // The page says it is restricted, though it lists no victims.
    expect(restricted).toContain("data-restricted");
    expect(restricted).not.toContain('id="victims"');
    const writer = await (await fetch(`${archive.url}/view/${id}`, { headers: as(WRITER) })).text();
    expect(writer).not.toContain("data-restricted");
    expect(writer).not.toContain("Kovalenko");
    expect(writer).not.toContain("station worker");
  });
});

describe("bad input: a clear problem, and nothing stored", () => {
  const id = "people-bad";
  beforeAll(async () => {
    await opening(id);
    expect((await post(archive.url, id, victims("bad-list-1", LIST))).status).toBe(201);
    const other = "people-bad-other";
    await opening(other);
    expect((await post(archive.url, other, victims("other-list-1", LIST))).status).toBe(201);
  });

  const refused = async (
    body: unknown,
    status: number,
    path: string,
    headers: Record<string, string> = {},
  ) => {
    const before = await head(id);
    const answer = await post(archive.url, id, body, headers);
    expect(answer.status, JSON.stringify(answer.body)).toBe(status);
    if (path) expect(answer.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    expect(await head(id)).toBe(before);
    return answer;
  };
  const link = (a: unknown, b: unknown) => ({
    type: "VictimsLinked",
    source: AP,
    attributedTo: { name: "Editor" },
    data: { a, b, relation: "same-person", certainty: "low" },
  });
  const redaction = (data: Record<string, unknown>) => ({
    type: "RedactionApplied",
    source: { publisher: "incident-ledger" },
    attributedTo: { name: "Archive editors" },
    data: {
      targetEventId: "bad-list-1",
      pointers: ["/data/victims/0/name"],
      effect: "withheld",
      reason: "safety-risk",
      ...data,
    },
  });

  it("$sealed sent by a client (422)", async () => {
    await refused(
      victims("bad-sealed-1", [{ name: { $sealed: "sha-256:abc" } }]),
      422,
      "data.victims[0].name.$sealed",
    );
  });
  it("a disclose mark on a field that is not sealed (422)", async () => {
    await refused(
      victims("bad-disclose", [{ sex: "male", name: "A" }], { "/data/victims/0/sex": "public" }),
      422,
      "data.disclose./data/victims/0/sex",
    );
  });
  it("501 victims, or a victim with no field (422)", async () => {
    await refused(
      victims(
        "bad-many-1",
        Array.from({ length: 501 }, () => ({ sex: "male" })),
      ),
      422,
      "data.victims",
    );
    await refused(victims("bad-empty-1", [{}]), 422, "data.victims[0]");
  });
  it("a link to an index that does not exist, to a missing event, or of an entry to itself (422)", async () => {
    await refused(
      link({ eventId: "bad-list-1", index: 0 }, { eventId: "bad-list-1", index: 3 }),
      422,
      "data.b.index",
    );
    await refused(
      link({ eventId: "no-such-list", index: 0 }, { eventId: "bad-list-1", index: 1 }),
      422,
      "data.a.eventId",
    );
    await refused(
      link({ eventId: "bad-list-1", index: 1 }, { eventId: "bad-list-1", index: 1 }),
      422,
      "data.b",
    );
  });
  it("a RedactionApplied by a writer who is not an editor (403)", async () => {
    const answer = await refused(redaction({}), 403, "", as(WRITER));
    expect(answer.body.type).toContain("forbidden");
  });
  it("a RedactionApplied on another incident's event, or on a pointer with no disclosure (422)", async () => {
    await refused(redaction({ targetEventId: "other-list-1" }), 422, "data.targetEventId");
    await refused(redaction({ pointers: ["/data/victims/0/sex"] }), 422, "data.pointers[0]");
    await refused(redaction({ pointers: ["/data/victims/9/name"] }), 422, "data.pointers[0]");
  });
  it("sealed values for an incident that does not exist (409), leaving no disclosure behind", async () => {
    const answer = await post(archive.url, "people-nowhere", victims("nowhere-list-1", LIST));
    expect(answer.status).toBe(409);
    const db = createDynamoClient(archive.dynamoEndpoint);
    const table = await db.send(new ScanCommand({ TableName: peopleTables(archive.tables).disclosures }));
    db.destroy();
    expect((table.Items ?? []).filter((i) => i.incidentId?.S === "people-nowhere")).toEqual([]);
  });
  it("a batch whose sealed events would pass DynamoDB's 400 KB item (413, naming the limit)", async () => {
    // Each tiny sealed value becomes a commitment of some 60 bytes: small bodies, large commits.
    const many = Array.from({ length: 500 }, () => ({ age: 1, place: "x" }));
    const batch = { events: Array.from({ length: 6 }, (_, i) => victims(`bad-big-${i}-000`, many)) };
    const answer = await refused(batch, 413, "");
    expect(answer.body.detail).toContain("400 KB");
  });
});

describe("redactions", () => {
  const id = "people-redact";
  let before: string;
  beforeAll(async () => {
    await opening(id);
    expect(
      (
        await post(
          archive.url,
          id,
          victims("redact-list-1", LIST, {
            "/data/victims/0/name": "public",
            "/data/victims/1/name": "public",
          }),
        )
      ).status,
    ).toBe(201);
    before = (await events(id)).text;
  });
  const redact = (eventId: string, pointers: string[], effect: string) => ({
    eventId,
    type: "RedactionApplied",
    source: { publisher: "incident-ledger" },
    attributedTo: { name: "Archive editors" },
    data: {
      targetEventId: "redact-list-1",
      pointers,
      effect,
      reason: "data-subject-request",
      requestRef: "DSR-17",
    },
  });
  const visible = async (headers: Record<string, string> = {}) =>
    (await disclosures(id, "redact-list-1", headers)).body.items.map((i: { pointer: string }) => i.pointer);

  it("withheld: the value leaves the public answers, a restricted-reader still reads it", async () => {
    const answer = await post(
      archive.url,
      id,
      redact("redact-withhold", ["/data/victims/0/name"], "withheld"),
    );
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    expect(await visible()).toEqual(["/data/victims/1/name"]);
    expect(await visible(as(READER))).toContain("/data/victims/0/name");
  });

  it("erased: gone for everyone and from the export, for good; the stored bytes and the chain unchanged", async () => {
    const answer = await post(
      archive.url,
      id,
      redact("redact-erase-1", ["/data/victims/1/name", "/data/victims/1/place"], "erased"),
    );
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    expect(await visible(as(READER))).not.toContain("/data/victims/1/name");
    expect(await visible(as(READER))).not.toContain("/data/victims/1/place");
    // The page says erased, not withheld, to anyone (the redaction saying so is public), and
    // its timeline entry names what the redaction did.
    for (const headers of [{}, as(READER)]) {
      const page = await (await fetch(`${archive.url}/view/${id}`, { headers })).text();
      expect(page).toMatch(/<td dir="auto">name: erased · nameVariants: [^<]* · place: erased<\/td>/);
      expect(page).not.toContain("Petro Bondar");
      expect(page).toMatch(/Erased 2 values of <a href="#ev-redact-list-1">/);
    }
    const exported = await (await fetch(`${archive.url}/export/disclosures.ndjson`)).text();
    expect(exported).not.toContain(`"eventId":"redact-list-1","pointer":"/data/victims/1/name"`);
    const db = createDynamoClient(archive.dynamoEndpoint);
    const table = await db.send(new ScanCommand({ TableName: peopleTables(archive.tables).disclosures }));
    db.destroy();
    // The event's values are packed in one item: the erased entries are tombstones (the digest
    // alone), and every other value of the pack is still there.
    const packs = (table.Items ?? []).filter((i) => i.eventId?.S === "redact-list-1");
    expect(packs).toHaveLength(1);
    const entries = JSON.parse(packs[0]?.entries?.S ?? "[]") as [string, string, string, string][];
    for (const erased of ["/data/victims/1/name", "/data/victims/1/place"]) {
      const entry = entries.find(([pointer]) => pointer === erased);
      expect(entry?.slice(2)).toEqual(["erased", "redact-erase-1"]);
      expect(entry?.[1]).toMatch(/^[A-Za-z0-9_-]{43}$/);
    }
    const left = entries.filter((e) => e[2] !== "erased").map((e) => e[3]);
    expect(left).toHaveLength(entries.length - 2);
    expect(left.map((d) => decodeDisclosure(d)?.value)).not.toContain("Petro Bondar");
    expect(left.map((d) => decodeDisclosure(d)?.value)).toContain("Olena Ivanenko");
    const { text, items } = await events(id);
    expect(text.startsWith(before.slice(0, before.lastIndexOf("]")))).toBe(true);
    expect(items.slice(0, 2)).toEqual(JSON.parse(before).items);
    expect((await call(archive.url, "GET", `/incidents/${id}/verify`)).body).toMatchObject({ ok: true });
  });

  it("an erasure whose redaction the store refused after its effect is recorded by the next redaction", async () => {
    expect((await post(archive.url, id, victims("redact-list-3", LIST))).status).toBe(201);
    const refusedErase = {
      ...redact("redact-list-1", ["/data/victims/0/name"], "erased"),
      data: {
        ...redact("x", [], "erased").data,
        targetEventId: "redact-list-3",
        pointers: ["/data/victims/0/name"],
      },
    };
    // Its eventId is another event's: the store refuses it (409), but the value is gone already,
    // erring on the person's side.
    const refused = await post(archive.url, id, refusedErase);
    expect(refused.status, JSON.stringify(refused.body)).toBe(409);
    const name = async () =>
      (await disclosures(id, "redact-list-3", as(READER))).body.items.find(
        (d: { pointer: string }) => d.pointer === "/data/victims/0/name",
      );
    expect(await name()).toBeUndefined();
    // A redaction with its own eventId then records what happened; once recorded, it is done.
    const record = { ...refusedErase, eventId: "redact-record-3" };
    expect((await post(archive.url, id, record)).status).toBe(201);
    const again = await post(archive.url, id, { ...refusedErase, eventId: "redact-again-3" });
    expect(again.status).toBe(422);
    expect(again.body.errors[0].message).toContain("already erased (by redact-record-3)");
  });

  it("redacting an erased value again (erasing or withholding it) is a 422 naming the pointer; a retry of the recorded event is still its first answer", async () => {
    const rows = async () => (await disclosures(id, "redact-list-1", as(READER))).body.items;
    const held = await rows();
    const before = await head(id);
    for (const effect of ["erased", "withheld"]) {
      const again = await post(
        archive.url,
        id,
        redact(`redact-again-${effect}`, ["/data/victims/0/name", "/data/victims/1/name"], effect),
      );
      expect(again.status, JSON.stringify(again.body)).toBe(422);
      expect(again.body.errors).toEqual([
        {
          path: "data.pointers[1]",
          message:
            "redact-list-1's value at /data/victims/1/name is already erased (by redact-erase-1): there is nothing left to redact",
        },
      ]);
    }
    expect(await head(id)).toBe(before);
    expect(await rows()).toEqual(held);
    // Posted without an eventId, the same: the erasure is recorded already.
    const { eventId: _none, ...anonymous } = redact("unused", ["/data/victims/1/name"], "erased");
    expect((await post(archive.url, id, anonymous)).status).toBe(422);
    // Withholding a value already withheld is a decision still worth recording (a court order,
    // say): it is accepted, and changes nothing.
    const withheld = await post(
      archive.url,
      id,
      redact("redact-withhold-2", ["/data/victims/0/name"], "withheld"),
    );
    expect(withheld.status, JSON.stringify(withheld.body)).toBe(201);
    expect(await rows()).toEqual(held);
    const repeat = await post(
      archive.url,
      id,
      redact("redact-erase-1", ["/data/victims/1/name", "/data/victims/1/place"], "erased"),
    );
    expect(repeat.status).toBe(200);
    const retry = await post(
      archive.url,
      id,
      victims("redact-list-1", LIST, { "/data/victims/0/name": "public", "/data/victims/1/name": "public" }),
    );
    expect(retry.status, JSON.stringify(retry.body)).toBe(200);
    expect(await visible(as(READER))).not.toContain("/data/victims/1/name");
  });

  it("a redaction whose effect was applied before its append failed is recorded when retried", async () => {
    const db = createDynamoClient(archive.dynamoEndpoint);
    const store = new DisclosureStore(db, peopleTables(archive.tables).disclosures);
    const notes = (await store.ofEvent(id, "redact-list-1")).filter(
      (h) => h.pointer === "/data/victims/2/notes",
    );
    expect(notes).toHaveLength(1);
    // The effect first, as the sealing append applies it; then the process dies before the append.
    await store.erase(notes, "redact-crashed");
    db.destroy();
    const retried = await post(
      archive.url,
      id,
      redact("redact-crashed", ["/data/victims/2/notes"], "erased"),
    );
    expect(retried.status, JSON.stringify(retried.body)).toBe(201);
    expect(await visible(as(READER))).not.toContain("/data/victims/2/notes");
  });

  it("a retraction of a redaction is a 422 saying what to do instead, and nothing is stored", async () => {
    const before = await head(id);
    const answer = await post(
      archive.url,
      id,
      {
        type: "ReportRetracted",
        source: AP,
        attributedTo: { name: "Wanda Writer" },
        data: { targetEventId: "redact-withhold", reason: "a mistake" },
      },
      as(WRITER),
    );
    expect(answer.status, JSON.stringify(answer.body)).toBe(422);
    expect(answer.body.errors).toEqual([
      { path: "data.targetEventId", message: expect.stringContaining("further RedactionApplied") },
    ]);
    expect(await head(id)).toBe(before);
  });

  it("the proofs and npm run verify pass after the redactions, the event's leaf as it was", async () => {
    const proof = async (eventId: string) =>
      (await call(archive.url, "GET", `/incidents/${id}/events/${eventId}/proof?wait=true`)).body;
    const listed = await proof("redact-list-1");
    await proof("redact-crashed");
    expect(listed.leaf).toContain(JSON.parse(before).items[1].hash);
    const vkey = ((await call(archive.url, "GET", "/log/vkey")).body as string).trim();
    const run = await runVerify(["--url", archive.url, "--vkey", vkey]);
    expect(run.stdout, run.stderr).toMatch(/^OK /);
    expect(run.code).toBe(0);
    const consistency = await call(archive.url, "GET", `/log/consistency?from=${listed.index + 1}`);
    expect(consistency.status).toBe(200);
  });

  it("npm run verify -- --disclosures checks the export, and names a pointer that does not match", async () => {
    const dir = mkdtempSync(join(tmpdir(), "disclosures-"));
    const good = join(dir, "good.ndjson");
    writeFileSync(good, await (await fetch(`${archive.url}/export/disclosures.ndjson`)).text());
    const ok = await runVerify(["--url", archive.url, "--disclosures", good]);
    expect(ok.stdout, ok.stderr).toMatch(/^OK \d+ disclosures match their commitments/);
    expect(ok.code).toBe(0);
    const forged = join(dir, "forged.ndjson");
    const salt = "AAAAAAAAAAAAAAAAAAAAAA";
    writeFileSync(
      forged,
      `${JSON.stringify({ incidentId: id, eventId: "redact-list-1", pointer: "/data/victims/2/notes", disclosure: encodeDisclosure(salt, "/data/victims/2/notes", "made up") })}\n`,
    );
    const bad = await runVerify(["--url", archive.url, "--disclosures", forged]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("redact-list-1 /data/victims/2/notes: does not match the commitment");
  });
});
