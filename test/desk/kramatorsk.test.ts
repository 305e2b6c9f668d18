import { readFileSync } from "node:fs";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EventType } from "../../events/schemas.js";
import { SCHEMA_VERSIONS } from "../../events/upcast.js";
import type { LocalServer } from "../../functions/local/server.js";
import { post, TOKEN } from "../support/archive.js";
import { fill, launchChromium, newPerson, signIn, startDeskArchive, submit } from "./desk-kit.js";

/**
 * Done when: the Kramatorsk sample's first six reports, recorded through the browser alone,
 * are the events `npm run sample` stores (bar ids, times, who recorded them and the hashes
 * those change). The sample's own rows are posted through the API beside them, as the script
 * does, under another incident name; the two incidents' events and summaries are compared.
 */

interface Row {
  incidentId: string;
  event: Record<string, unknown> & { eventId: string; type: string; data: Record<string, unknown> };
}
const SAMPLE: Row[] = readFileSync(new URL("../../sample/kramatorsk-article.ndjson", import.meta.url), "utf8")
  .split("\n")
  .filter((line) => line.trim() !== "")
  .slice(0, 6)
  .map((line) => JSON.parse(line));
const INCIDENT = SAMPLE[0]?.incidentId as string;
const BY_API = "kramatorsk-by-api";

const FORM_OF_TYPE: Record<string, { slug: string; button: string }> = {
  CasualtiesReported: { slug: "casualties", button: "Report casualty figures" },
  StatementMade: { slug: "statement", button: "Record a statement" },
};
const WELL_KNOWN = ["killed", "injured", "missing", "childrenKilled", "childrenInjured", "present"];

/** An event's fields as a person types them into the desk's form (every part named by its path). */
function formFields(event: Row["event"]): Record<string, string> {
  const fields: Record<string, string> = {};
  const flat = (prefix: string, value: unknown) => {
    if (typeof value === "object" && value !== null)
      for (const [k, v] of Object.entries(value)) flat(prefix ? `${prefix}.${k}` : k, v);
    else fields[prefix] = String(value);
  };
  const { eventId: _id, type: _type, data, ...rest } = event;
  flat("", rest);
  if (event.type !== "CasualtiesReported") flat("data", data);
  else
    Object.entries(data.figures as Record<string, Record<string, unknown>>).forEach(
      ([category, figure], i) => {
        const known = WELL_KNOWN.includes(category);
        fields[`figures[${i}].category`] = known ? category : "other";
        if (!known) fields[`figures[${i}].other`] = category;
        fields[`figures[${i}].form`] = "min" in figure ? "range" : String(figure.qualifier);
        for (const part of ["value", "min", "max", "text"])
          if (figure[part] !== undefined) fields[`figures[${i}].${part}`] = String(figure[part]);
      },
    );
  return fields;
}

const SERVER_FIELDS = ["eventId", "incidentId", "recordedAt", "recordedBy", "prevHash", "hash"];
const bare = (e: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(e).filter(([k]) => !SERVER_FIELDS.includes(k)));
// biome-ignore lint/suspicious/noExplicitAny: answers read loosely, asserted on.
const read = async (base: string, path: string): Promise<any> => (await fetch(`${base}${path}`)).json();

let archive: LocalServer;
let browser: Browser;
let person: BrowserContext;
let page: Page;

beforeAll(async () => {
  [archive, browser] = await Promise.all([startDeskArchive(), launchChromium()]);
  person = await newPerson(browser);
  page = await person.newPage();
});

afterAll(async () => {
  await person?.close();
  await browser?.close();
  await archive?.close();
});

describe("the Kramatorsk sample through the desk", () => {
  it("stores the first six reports as npm run sample does", async () => {
    await signIn(page, archive.url, TOKEN, "/desk/new");
    for (const [i, { event }] of SAMPLE.entries()) {
      const fields = formFields(event);
      if (i === 0) {
        await fill(page, { incidentId: INCIDENT, ...fields });
        await submit(page, "Open an incident");
      } else {
        const form = FORM_OF_TYPE[event.type] as { slug: string; button: string };
        await page.goto(`${archive.url}/desk/incidents/${INCIDENT}/${form.slug}`);
        // Two figure rows at first: the third is added with the form's own button.
        for (let rows = 2; `figures[${rows}].category` in fields; rows++) {
          await submit(page, "Add another category");
          // The page opens on the row just added, for a keyboard user as for anyone.
          await expect(page.locator(":focus").getAttribute("name")).resolves.toBe(
            `figures[${rows}].category`,
          );
        }
        await fill(page, fields);
        await submit(page, form.button);
      }
      expect(new URL(page.url()).pathname, `${event.eventId} stored`).toBe(`/view/${INCIDENT}`);
    }
    for (const { event } of SAMPLE) expect((await post(archive.url, BY_API, event)).status).toBe(201);

    const desk = (await read(archive.url, `/incidents/${INCIDENT}/events`)).items;
    const api = (await read(archive.url, `/incidents/${BY_API}/events`)).items;
    expect(desk.map(bare)).toEqual(api.map(bare));
    expect(desk.map(bare)).toEqual(
      SAMPLE.map((row, i) => ({
        ...bare(row.event),
        version: i + 1,
        schemaVersion: SCHEMA_VERSIONS[row.event.type as EventType],
      })),
    );
    expect(new Set(desk.map((e: { recordedBy: string }) => e.recordedBy))).toEqual(new Set(["test-writer"]));

    // And so the summaries agree, but for the names of things.
    const ids = new Map(desk.map((e: { eventId: string }, i: number) => [e.eventId, api[i].eventId]));
    const renamed = JSON.stringify(await read(archive.url, `/incidents/${INCIDENT}`)).replace(
      /"(desk-[A-Za-z0-9_-]+)"/g,
      (_m, id: string) => JSON.stringify(ids.get(id) ?? id),
    );
    const strip = (s: Record<string, unknown>) => {
      const { incidentId: _i, headHash: _h, ...rest } = s;
      return JSON.parse(JSON.stringify(rest).replace(/"(\w*[rR]ecordedAt)":"[^"]+"/g, '"$1":""'));
    };
    expect(strip(JSON.parse(renamed))).toEqual(strip(await read(archive.url, `/incidents/${BY_API}`)));
  });
});
