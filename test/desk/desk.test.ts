import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalServer } from "../../functions/local/server.js";
import { TOKEN } from "../support/archive.js";
import {
  expectAccessible,
  fill,
  follow,
  launchChromium,
  newPerson,
  SHOTS,
  signIn,
  startDeskArchive,
  submit,
  WRITER,
} from "./desk-kit.js";

/**
 * The desk in Chromium, as a writer uses it: sign in, open an incident, record casualties (two
 * categories, "at least 50" and "dozens"), a statement, a denial, its assessment and a
 * retraction, each seen on the page and in the JSON summary; mistakes shown the GOV.UK way;
 * one event per form however often it is sent; forged posts refused; roles respected.
 */

const INCIDENT = "desk-station-strike-2022-04-08";
const AP = { "source.publisher": "Associated Press", "source.publishedAt": "2022-04-08" };

let archive: LocalServer;
let browser: Browser;
let rita: BrowserContext;
let page: Page;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  [archive, browser] = await Promise.all([startDeskArchive(), launchChromium()]);
  rita = await newPerson(browser);
  page = await rita.newPage();
  page.on("request", (r) => process.env.DESK_DEBUG && console.log("req", r.method(), r.url()));
  page.on("response", (r) => process.env.DESK_DEBUG && console.log("res", r.status(), r.url()));
  page.on("dialog", (dialog) => {
    throw new Error(`unexpected dialog: ${dialog.message()}`);
  });
});

afterAll(async () => {
  await rita?.close();
  await browser?.close();
  await archive?.close();
});

/** A whole-page shot; the focused field is left first (Chromium drops the next click otherwise). */
const shot = async (name: string) => {
  await page.evaluate(() => document.activeElement?.blur());
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
};
// biome-ignore lint/suspicious/noExplicitAny: answers read loosely, asserted on.
const json = async (path: string): Promise<any> => (await fetch(`${archive.url}${path}`)).json();
const events = async () => (await json(`/incidents/${INCIDENT}/events`)).items as Record<string, unknown>[];
const formUrl = (slug: string) => `${archive.url}/desk/incidents/${INCIDENT}/${slug}`;

/** Follows the incident page's link to a form, as a person would. */
async function openForm(title: string): Promise<void> {
  await page.goto(`${archive.url}/view/${INCIDENT}`);
  const incidentTitle = await page.getByRole("heading", { level: 1 }).textContent();
  await follow(page, title);
  await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toBe(title);
  // The way back names the incident as a person knows it: its title, not its id.
  await expect(page.locator(".crumbs a").textContent()).resolves.toBe(`← Back to ${incidentTitle}`);
}

/** After a post: the incident page, at the new event, which it already shows. */
async function expectAtNewEvent(): Promise<Record<string, unknown>> {
  const url = new URL(page.url());
  if (url.pathname !== `/view/${INCIDENT}`)
    throw new Error(`not stored: ${await page.locator(".error-summary").textContent()}`);
  const eventId = url.hash.replace(/^#ev-/, "");
  const stored = (await events()).find((e) => e.eventId === eventId);
  expect(stored, `event ${eventId} stored`).toBeDefined();
  await expect(page.locator(`#ev-${eventId}`).count()).resolves.toBe(1);
  // Said at the top of the page too, in words, with the way to it.
  expect(url.searchParams.get("recorded")).toBe(eventId);
  await expect(page.locator(`[data-recorded="${eventId}"]`).textContent()).resolves.toMatch(
    new RegExp(
      `^Recorded: .+, as version ${(stored as { version: number }).version}\\. See it in the timeline\\.$`,
    ),
  );
  return stored as Record<string, unknown>;
}

describe("the desk in Chromium", () => {
  it("signs a writer in with the token and sends an anonymous visitor to sign in", async () => {
    await page.goto(`${archive.url}/desk/new`);
    expect(new URL(page.url()).pathname).toBe("/sign-in");
    await shot("sign-in");
    await expectAccessible(browser, rita, `${archive.url}/sign-in`);
    await expectAccessible(browser, rita, `${archive.url}/sign-in`, async (p) => {
      await p.getByLabel("Your token").fill("not-a-token-of-this-archive");
      await submit(p, "Sign in");
      await expect(p.locator(".error-summary").textContent()).resolves.toContain(
        "not one this archive knows",
      );
    });
    await signIn(page, archive.url, WRITER.token);
    const cookie = (await rita.cookies()).find((c) => c.name === "ledger_session");
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Lax" });
    expect((cookie?.expires ?? 0) - Date.now() / 1000).toBeLessThanOrEqual(12 * 3600);
    await expect(page.getByText(`Signed in as ${WRITER.name}`).count()).resolves.toBe(1);
  });

  it("opens an incident and records each kind of report, seen on the page and in the summary", async () => {
    await page.goto(`${archive.url}/desk`);
    await follow(page, "Open an incident");
    await expectAccessible(browser, rita, page.url());
    await fill(page, {
      incidentId: INCIDENT,
      "data.title": "Missile strike on a railway station",
      "data.kind": "missile-strike",
      "data.location.name": "Railway station",
      "data.location.country": "UA",
      "data.occurredOn": "2022-04-08",
      ...AP,
    });
    await shot("form-incident-opened");
    await submit(page, "Open an incident");
    const opened = await expectAtNewEvent();
    expect(opened).toMatchObject({ type: "IncidentOpened", version: 1, recordedBy: WRITER.name });
    await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toBe(
      "Missile strike on a railway station",
    );

    await openForm("Report casualty figures");
    await expectAccessible(browser, rita, page.url());
    await fill(page, {
      "figures[0].category": "killed",
      "figures[0].form": "at-least",
      "figures[0].value": "50",
      "figures[0].text": "at least 50",
      "figures[1].category": "injured",
      "figures[1].form": "dozens",
      "figures[1].text": "dozens",
      ...AP,
      "attributedTo.name": "Ukrainian authorities",
      "attributedTo.side": "Ukraine",
    });
    await shot("form-casualties");
    await submit(page, "Report casualty figures");
    const casualties = await expectAtNewEvent();
    expect(casualties.data).toEqual({
      figures: {
        killed: { value: 50, qualifier: "at-least", text: "at least 50" },
        injured: { qualifier: "dozens", text: "dozens" },
      },
    });
    await expect(page.locator("[data-headlines]").textContent()).resolves.toBe(
      "killed: at least 50 · injured: dozens",
    );

    await openForm("Record a statement");
    await expectAccessible(browser, rita, page.url());
    // Names already used are suggested, one spelling each.
    await expect(
      page.locator("datalist#speakers option").evaluateAll((os) => os.map((o) => o.value)),
    ).resolves.toContain("Ukrainian authorities");
    await expect(
      page.locator("datalist#publishers option").evaluateAll((os) => os.map((o) => o.value)),
    ).resolves.toEqual(["Associated Press"]);
    await fill(page, {
      "attributedTo.name": "Volodymyr Zelenskyy",
      "attributedTo.role": "President of Ukraine",
      "data.quote": "This is an evil without limits.",
      "data.stance": "condemns",
      "data.channel": "social media",
      ...AP,
    });
    await shot("form-statement");
    await submit(page, "Record a statement");
    const statement = await expectAtNewEvent();
    await expect(page.locator("#statements").textContent()).resolves.toContain(
      "This is an evil without limits.",
    );

    await openForm("Record a denial");
    await expectAccessible(browser, rita, page.url());
    await fill(page, {
      "attributedTo.name": "Russian Ministry of Defence",
      "attributedTo.side": "Russia",
      "data.claim": "responsibility for the strike",
      "data.counterClaim": "a Ukrainian missile",
      "source.publisher": "TASS",
    });
    await shot("form-denial");
    await submit(page, "Record a denial");
    const denial = await expectAtNewEvent();
    await expect(page.locator("#denials").textContent()).resolves.toContain("responsibility for the strike");

    await openForm("Record an assessment");
    await expectAccessible(browser, rita, page.url());
    // The target is picked by who said what.
    await page
      .getByLabel(/Denial issued · Russian Ministry of Defence \(Russia\): denies responsibility/)
      .check();
    await fill(page, {
      "data.verdict": "false",
      "data.reasoning": "The missile's serial number belongs to Russian stocks.",
      "attributedTo.name": "Bellingcat",
      "source.publisher": "Bellingcat",
    });
    await shot("form-assessment");
    await submit(page, "Record an assessment");
    const assessment = await expectAtNewEvent();
    expect(assessment.data).toMatchObject({ targetEventId: denial.eventId, verdict: "false" });

    await openForm("Record a retraction");
    await expectAccessible(browser, rita, page.url());
    await page.getByLabel(/Statement made · Volodymyr Zelenskyy/).check();
    await fill(page, {
      "data.reason": "Misattributed quote",
      "attributedTo.name": "Associated Press",
      ...AP,
    });
    await shot("form-retraction");
    await submit(page, "Record a retraction");
    const retraction = await expectAtNewEvent();
    expect(retraction.data).toMatchObject({ targetEventId: statement.eventId });
    await shot("incident-after");

    const summary = await json(`/incidents/${INCIDENT}`);
    expect(summary.casualties.killed).toMatchObject({ low: 50, high: null });
    expect(summary.casualties.injured).toMatchObject({ low: 24, high: 99 });
    expect(summary.denials[0]).toMatchObject({ eventId: denial.eventId, status: "false" });
    expect(summary.retractedEventIds).toEqual([statement.eventId]);
    expect(summary.statements.count).toBe(0);
    expect(summary.version).toBe(6);
    expect(new Set((await events()).map((e) => e.recordedBy))).toEqual(new Set([WRITER.name]));
  });

  it("codes when and where for research: an opening's precisions and end, refused and kept, then a revision that keeps the place's precision", async () => {
    const coded = "desk-coded-market-2022-04-08";
    const opening = {
      incidentId: coded,
      "data.title": "Shelling of a market",
      "data.kind": "shelling",
      "data.location.name": "Central market",
      "data.location.country": "UA",
      "data.location.lat": "48.7305",
      "data.location.lon": "37.5867",
      "data.location.precision": "near",
      "data.occurredOn": "2022-04-08",
      "data.occurredUntil": "2022-04-07",
      ...AP,
    };
    await page.goto(`${archive.url}/desk/new`);
    await fill(page, opening);
    // A select by keyboard alone: focused, then its choice typed.
    await page.locator('[name="data.timePrecision"]').focus();
    await page.keyboard.type("Within");
    await expect(page.locator('[name="data.timePrecision"]').inputValue()).resolves.toBe("days");
    await Promise.all([
      page.waitForResponse((r) => r.request().method() === "POST"),
      page.locator('[name="data.occurredUntil"]').press("Enter"),
    ]);
    await page.waitForLoadState("load");
    const ended = "When it ended must not be before the start (“Time it happened” or “Day it happened”)";
    await expect(page.locator(".error-summary li").allTextContents()).resolves.toEqual([ended]);
    await expect(page.locator("#f-data-occurredUntil-error").textContent()).resolves.toContain(ended);
    await expect(page.locator("#f-data-occurredUntil").getAttribute("aria-invalid")).resolves.toBe("true");
    for (const [name, value] of Object.entries({ ...opening, "data.timePrecision": "days" }))
      await expect(page.locator(`[name="${name}"]`).inputValue(), name).resolves.toBe(value);
    expect((await fetch(`${archive.url}/incidents/${coded}`)).status).toBe(404);
    await shot("form-incident-opened-coded-errors");
    await expectAccessible(browser, rita, `${archive.url}/desk/new`, async (p) => {
      await fill(p, { ...opening, "data.timePrecision": "days" });
      await submit(p, "Open an incident");
      await expect(p.locator(".error-summary li").count()).resolves.toBe(1);
    });
    await fill(page, { "data.occurredUntil": "2022-04-10" });
    await submit(page, "Open an incident");
    const [stored] = ((await json(`/incidents/${coded}/events`)).items ?? []) as Record<string, unknown>[];
    expect(stored?.data).toMatchObject({
      location: { name: "Central market", country: "UA", lat: 48.7305, lon: 37.5867, precision: "near" },
      occurredOn: "2022-04-08",
      occurredUntil: "2022-04-10",
      timePrecision: "days",
    });

    // An editor revises the place: the precision it had is shown, and kept with the new place.
    const editor = await newPerson(browser);
    try {
      const editorPage = await editor.newPage();
      await signIn(editorPage, archive.url, TOKEN);
      const revision = `${archive.url}/desk/incidents/${coded}/revision`;
      await editorPage.goto(revision);
      await expect(editorPage.locator('[name="data.location.precision"]').inputValue()).resolves.toBe("near");
      // The place as it stands, to change what is wrong in it.
      await expect(editorPage.locator('[name="data.location.name"]').inputValue()).resolves.toBe(
        "Central market",
      );
      await expect(editorPage.locator('[name="data.location.lat"]').inputValue()).resolves.toBe("48.7305");
      await expectAccessible(browser, editor, revision);
      await fill(editorPage, {
        "data.location.name": "Market square",
        "data.location.country": "UA",
        "attributedTo.name": "Desk editors",
        "source.publisher": "incident-ledger",
      });
      await editorPage.evaluate(() => document.activeElement?.blur());
      await editorPage.screenshot({ path: join(SHOTS, "form-incident-revised.png"), fullPage: true });
      await submit(editorPage, "Revise the incident's details");
      expect(new URL(editorPage.url()).pathname).toBe(`/view/${coded}`);
      const summary = await json(`/incidents/${coded}`);
      expect(summary.location).toEqual({
        name: "Market square",
        country: "UA",
        lat: 48.7305,
        lon: 37.5867,
        precision: "near",
      });
      expect(summary.revisedInVersion).toBe(2);
      /** The revision form opened afresh, these fields changed, by the desk's editors, sent. */
      const revise = async (fields: Record<string, string>) => {
        await editorPage.goto(revision);
        await fill(editorPage, {
          ...fields,
          "attributedTo.name": "Desk editors",
          "source.publisher": "incident-ledger",
        });
        await submit(editorPage, "Revise the incident's details");
      };
      // Only the coordinates corrected: the place keeps its name and country, nothing retyped.
      await revise({ "data.location.lat": "48.7312" });
      expect((await json(`/incidents/${coded}`)).location).toEqual({
        name: "Market square",
        country: "UA",
        lat: 48.7312,
        lon: 37.5867,
        precision: "near",
      });
      // A title alone: the place, shown unchanged, is not in the revision.
      await revise({ "data.title": "Shelling of the market square" });
      const titled = (await json(`/incidents/${coded}/events`)).items.at(-1) as {
        data: Record<string, unknown>;
      };
      expect(titled.data).toEqual({ title: "Shelling of the market square" });
    } finally {
      await editor.close();
    }
  });

  it("records victims, two people in one report, their names sealed from public reads", async () => {
    await openForm("Record victims");
    await submit(page, "Add another person");
    await fill(page, {
      "victims[0].name": "Olena Petrenko-Desk",
      "victims[0].age": "34",
      "victims[0].sex": "female",
      "victims[0].status": "civilian",
      "victims[1].name": "Ivan Desk-Hrytsenko",
      "victims[1].ageGroup": "child",
      "attributedTo.name": "Regional police",
      ...AP,
    });
    await shot("form-victims");
    await expectAccessible(browser, rita, formUrl("victims"));
    await submit(page, "Record victims");
    const stored = await expectAtNewEvent();
    expect(stored.type).toBe("VictimsRecorded");
    // Where the recorder lands fits a phone: the victims' table scrolls, not the page.
    await page.setViewportSize({ width: 375, height: 800 });
    await expect(page.evaluate(() => document.documentElement.scrollWidth)).resolves.toBeLessThanOrEqual(375);
    await page.setViewportSize({ width: 1100, height: 900 });
    // Rita holds no restricted-reader role, and the public record names nobody.
    const everything = JSON.stringify(await events()) + (await page.content());
    expect(everything).not.toContain("Olena Petrenko-Desk");
    expect(everything).not.toContain("Ivan Desk-Hrytsenko");
    // Editors' forms are not offered to a writer.
    await expect(page.getByRole("link", { name: "Redact personal data" }).count()).resolves.toBe(0);

    // An editor withholds the second person's name by ticking it: no pointer typed.
    const editor = await newPerson(browser);
    try {
      const editorPage = await editor.newPage();
      await signIn(editorPage, archive.url, TOKEN);
      const redaction = `${archive.url}/desk/incidents/${INCIDENT}/redaction?target=${stored.eventId}`;
      await editorPage.goto(redaction);
      await expectAccessible(browser, editor, redaction);
      const tick = editorPage.getByRole("checkbox", { name: "Person 2: name" });
      await expect(tick.count()).resolves.toBe(1);
      await tick.check();
      await fill(editorPage, {
        "data.effect": "withheld",
        "data.reason": "safety-risk",
        "attributedTo.name": "Desk editors",
        "source.publisher": "incident-ledger",
      });
      await submit(editorPage, "Redact personal data");
      const redacted = (await events()).at(-1) as { type: string; data: Record<string, unknown> };
      expect(redacted.type).toBe("RedactionApplied");
      expect(redacted.data).toMatchObject({
        targetEventId: stored.eventId,
        pointers: ["/data/victims/1/name"],
      });
    } finally {
      await editor.close();
    }
  });

  it("records a statement by a private witness, their name and role sealed and shown by pseudonym", async () => {
    await openForm("Record a statement");
    const witness = {
      "attributedTo.name": "Halyna Desk-Witness",
      "attributedTo.role": "Station cleaner",
      "attributedTo.kind": "private",
      "data.quote": "The second explosion came a minute after the first.",
      "data.stance": "neutral",
      ...AP,
    };
    // Without a pseudonym the form comes back naming it, with what was typed kept.
    const before = (await events()).length;
    await fill(page, witness);
    await submit(page, "Record a statement");
    await expect(page.locator(".error-summary").textContent()).resolves.toContain("Pseudonym");
    // The label says when it is needed, not that it is optional.
    await expect(page.locator('label[for="f-attributedTo-ref"]').textContent()).resolves.toBe(
      "Pseudonym (needed for a private person)",
    );
    await expect(page.locator('[name="attributedTo.name"]').inputValue()).resolves.toBe(
      "Halyna Desk-Witness",
    );
    expect((await events()).length).toBe(before);

    await fill(page, { "attributedTo.ref": "witness-H" });
    await submit(page, "Record a statement");
    const stored = await expectAtNewEvent();
    expect(stored.attributedTo).toMatchObject({
      kind: "private",
      ref: "witness-H",
      name: { $sealed: expect.stringMatching(/^sha-256:/) },
      role: { $sealed: expect.stringMatching(/^sha-256:/) },
    });
    await expect(page.locator("#statements").textContent()).resolves.toContain("witness-H");
    // Rita holds no restricted-reader role: neither the page nor the record names the witness.
    const everything = JSON.stringify(await events()) + (await page.content());
    expect(everything).not.toContain("Halyna Desk-Witness");
    expect(everything).not.toContain("Station cleaner");
  });

  it("shows a form with three mistakes again with three messages and every value kept, storing nothing", async () => {
    const before = (await events()).length;
    const mistakes = {
      "figures[0].category": "killed",
      "figures[0].form": "at-least",
      "figures[0].value": "fifty",
      "figures[0].text": "at least fifty",
      "figures[1].category": "injured",
      "figures[1].form": "range",
      "figures[1].min": "20",
      "figures[1].max": "15",
      "source.url": "https://example.org/report",
      "attributedTo.name": "Ukrainian authorities",
    };
    await page.goto(formUrl("casualties"));
    await fill(page, mistakes);
    // Enter in a field sends the form with its main button, not "Add another category".
    await Promise.all([
      page.waitForResponse((r) => r.request().method() === "POST"),
      page.locator('[name="figures[0].text"]').press("Enter"),
    ]);
    await page.waitForLoadState("load");
    const summary = page.locator(".error-summary");
    await expect(summary.locator("li").allTextContents()).resolves.toEqual([
      "Figure 1: number must be a whole number in digits, e.g. 50",
      "Figure 2: from must not be more than the higher end (“Figure 2: to”)",
      "Publisher is required",
    ]);
    await expect(page.title()).resolves.toMatch(/^Error: /);
    // Each message sits by its field, and the summary's links lead there.
    await expect(page.locator("#f-figures-0-value").getAttribute("aria-invalid")).resolves.toBe("true");
    await expect(page.locator(".has-error .field-error").count()).resolves.toBe(3);
    await summary.getByRole("link", { name: /Publisher/ }).click();
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe("f-source-publisher");
    for (const [name, value] of Object.entries(mistakes))
      await expect(page.locator(`[name="${name}"]`).inputValue(), name).resolves.toBe(value);
    await shot("form-casualties-errors");
    expect((await events()).length).toBe(before);
    await expectAccessible(browser, rita, formUrl("casualties"), async (p) => {
      await fill(p, mistakes);
      await submit(p, "Report casualty figures");
      await expect(p.locator(".error-summary li").count()).resolves.toBe(3);
    });
    // The fix: the same form, now right, is stored once.
    await fill(page, { "figures[0].value": "50", "figures[1].max": "25", "source.publisher": "Reuters" });
    await submit(page, "Report casualty figures");
    await expectAtNewEvent();
    expect((await events()).length).toBe(before + 1);
  });

  it("names every missing field of an opening at once, not a few per sending", async () => {
    const incidents = async () => ((await json("/incidents?limit=100")).items as unknown[]).length;
    const before = await incidents();
    await page.goto(`${archive.url}/desk/new`);
    await submit(page, "Open an incident");
    const summary = page.locator(".error-summary li");
    await expect(summary.allTextContents()).resolves.toEqual([
      "Incident name is required",
      "Title is required",
      "Kind is required",
      "Place is required",
      "Country is required",
      "Publisher is required",
    ]);
    for (const name of ["data.location.name", "data.location.country", "data.kind"])
      await expect(page.locator(`[name="${name}"]`).getAttribute("aria-invalid"), name).resolves.toBe("true");
    // Some filled in: the rest are named together, and what was typed is kept.
    const some = { "data.title": "Shelling of a bus stop", "source.publisher": "Associated Press" };
    await fill(page, some);
    await submit(page, "Open an incident");
    await expect(summary.allTextContents()).resolves.toEqual([
      "Incident name is required",
      "Kind is required",
      "Place is required",
      "Country is required",
    ]);
    for (const [name, value] of Object.entries(some))
      await expect(page.locator(`[name="${name}"]`).inputValue(), name).resolves.toBe(value);
    await expectAccessible(browser, rita, `${archive.url}/desk/new`, async (p) => {
      await submit(p, "Open an incident");
      await expect(p.locator(".error-summary li").count()).resolves.toBe(6);
    });
    expect(await incidents()).toBe(before);
  });

  it("stores one event when a form is sent twice (a double click, then the same form again)", async () => {
    await page.goto(formUrl("statement"));
    await fill(page, {
      "attributedTo.name": "Pavlo Kyrylenko",
      "data.quote": "Sent twice, stored once.",
      "data.stance": "neutral",
      ...AP,
    });
    const form = Object.fromEntries(
      await page
        .locator("form.desk-form input, form.desk-form textarea")
        .evaluateAll((els) =>
          els.filter((e) => e.type !== "radio" || e.checked).map((e) => [e.name, e.value]),
        ),
    );
    const before = (await events()).length;
    await page.getByRole("button", { name: "Record a statement", exact: true }).dblclick();
    // The second click's submission aborts the first one's navigation, which waitForURL may
    // report as a failure (ERR_ABORTED): wait for where the page lands instead.
    await expect.poll(() => page.url(), { timeout: 30_000 }).toMatch(/\/view\//);
    const again = await rita.request.post(formUrl("statement"), {
      form: form as Record<string, string>,
      headers: { origin: archive.url },
      maxRedirects: 0,
    });
    expect(again.status()).toBe(303);
    expect(again.headers().location).toBe(`/view/${INCIDENT}?recorded=${form.eventId}#ev-${form.eventId}`);
    const stored = (await events()).filter(
      (e) => (e.data as { quote?: string }).quote === "Sent twice, stored once.",
    );
    expect(stored.map((e) => e.eventId)).toEqual([form.eventId]);
    expect((await events()).length).toBe(before + 1);
  });

  it("stores nothing new when a sent form is reopened with Back and sent again, and says it was recorded", async () => {
    const statement = {
      "attributedTo.name": "Pavlo Kyrylenko",
      "data.quote": "Sent, then Back, then sent again.",
      "data.stance": "neutral",
      ...AP,
    };
    await openForm("Record a statement");
    await fill(page, statement);
    await submit(page, "Record a statement");
    const first = await expectAtNewEvent();
    const before = (await events()).length;
    await page.goBack();
    await expect(page.locator(".notice").textContent()).resolves.toMatch(
      new RegExp(`already recorded, as Statement made \\(version ${first.version}\\) in ${INCIDENT}`),
    );
    await expect(page.locator('input[name="eventId"]').inputValue()).resolves.toBe(first.eventId);
    // Sent as Back may leave it, fields emptied: not a refusal to put right, the same notice.
    const emptied = await rita.request.post(formUrl("statement"), {
      form: {
        formToken: await page.locator('form.desk-form [name="formToken"]').inputValue(),
        eventId: String(first.eventId),
        "attributedTo.name": "Pavlo Kyrylenko",
      },
      headers: { origin: archive.url },
      maxRedirects: 0,
    });
    expect(emptied.status()).toBe(422);
    const notice = await emptied.text();
    expect(notice).toContain("This form was already recorded");
    expect(notice).toContain("Quote");
    expect(/name="eventId" value="([^"]+)"/.exec(notice)?.[1]).toBe(first.eventId);
    expect((await events()).length).toBe(before);
    // Whatever the browser kept of the typed values, the same report is sent again.
    await fill(page, statement);
    await submit(page, "Record a statement");
    await expect(expectAtNewEvent()).resolves.toMatchObject({ eventId: first.eventId });
    expect((await events()).length).toBe(before);
    await page.goBack();
    await follow(page, "Open a new, empty form");
    await expect(page.locator(".notice").count()).resolves.toBe(0);
    const fresh = await page.locator('input[name="eventId"]').inputValue();
    expect(fresh).not.toBe(first.eventId);
    // Its own address names its new id: Back after sending it is the same form too.
    expect(new URL(page.url()).searchParams.get("eventId")).toBe(fresh);
    const bad = await rita.request.get(`${formUrl("statement")}?eventId=no`);
    expect(bad.status()).toBe(400);
    await expect(bad.text()).resolves.toMatch(/eventId is not one this desk makes/);
    // The statement's id at another form's address: not that form's, so not "already recorded" there.
    const elsewhere = await rita.request.get(`${formUrl("casualties")}?eventId=${first.eventId}`);
    expect(elsewhere.status()).toBe(400);
    await expect(elsewhere.text()).resolves.toMatch(/names an event another form recorded/);
    // Refused, put right and stored, then the refused post sent again (Back to the refusal and
    // resubmitted): the report is said to be recorded, not asked for again.
    const sent = {
      formToken: await page.locator('form.desk-form [name="formToken"]').inputValue(),
      eventId: fresh,
      "attributedTo.name": "Pavlo Kyrylenko",
      "data.stance": "neutral",
      "source.publisher": AP["source.publisher"],
    };
    const post = (form: Record<string, string>) =>
      rita.request.post(formUrl("statement"), { form, headers: { origin: archive.url }, maxRedirects: 0 });
    expect((await post(sent)).status()).toBe(422);
    expect((await post({ ...sent, "data.quote": "Put right, then stored." })).status()).toBe(303);
    const count = (await events()).length;
    const resent = await post(sent);
    expect(resent.status()).toBe(422);
    await expect(resent.text()).resolves.toMatch(/already recorded/);
    expect((await events()).length).toBe(count);
    // Put right again as before, it is that event: one stored, however often it is sent.
    expect((await post({ ...sent, "data.quote": "Put right, then stored." })).status()).toBe(303);
    expect((await events()).length).toBe(count);
  });

  it("refuses a post from another origin and one without the form token (403), storing nothing", async () => {
    await page.goto(formUrl("denial"));
    const formToken = await page.locator('form.desk-form [name="formToken"]').inputValue();
    const body = {
      formToken,
      eventId: "forged-0000000001",
      "attributedTo.name": "Someone",
      "data.claim": "anything",
      "source.publisher": "Forgery Weekly",
    };
    const before = (await events()).length;
    const foreign = await rita.request.post(formUrl("denial"), {
      form: body,
      headers: { origin: "https://attacker.example" },
      maxRedirects: 0,
    });
    expect(foreign.status()).toBe(403);
    const { formToken: _dropped, ...tokenless } = body;
    const noToken = await rita.request.post(formUrl("denial"), {
      form: tokenless,
      headers: { origin: archive.url },
      maxRedirects: 0,
    });
    expect(noToken.status()).toBe(403);
    const wrongToken = await rita.request.post(formUrl("denial"), {
      form: { ...body, formToken: "x".repeat(32) },
      headers: { origin: archive.url },
      maxRedirects: 0,
    });
    expect(wrongToken.status()).toBe(403);
    expect((await events()).length).toBe(before);
  });

  it("shows a writer no editor form, and refuses one posted by hand (403)", async () => {
    await page.goto(`${archive.url}/desk`);
    await expect(page.getByRole("link", { name: "Name a release" }).count()).resolves.toBe(0);
    const refused = await rita.request.get(`${archive.url}/desk/release`, { maxRedirects: 0 });
    expect(refused.status()).toBe(403);
    const formToken = await page.locator('[name="formToken"]').first().inputValue();
    const posted = await rita.request.post(`${archive.url}/desk/release`, {
      form: { formToken, name: "rita-release", note: "" },
      headers: { origin: archive.url },
      maxRedirects: 0,
    });
    expect(posted.status()).toBe(403);
    expect(((await json("/releases")) as { items: unknown[] }).items).toEqual([]);

    // Someone who holds the editor role sees it.
    const editor = await newPerson(browser);
    try {
      const editorPage = await editor.newPage();
      await signIn(editorPage, archive.url, TOKEN);
      await expect(editorPage.getByRole("link", { name: "Name a release" }).count()).resolves.toBe(1);
      await editorPage.getByRole("link", { name: "Name a release" }).click();
      await editorPage.waitForLoadState("load");
      await editorPage.screenshot({ path: join(SHOTS, "form-release.png"), fullPage: true });
      await expectAccessible(browser, editor, editorPage.url());
      // The editor names one, through POST /releases' own code, over the log's signed checkpoint.
      await archive.logWriter.pass();
      await fill(editorPage, { name: "desk-release-1", note: "Named from the desk" });
      await submit(editorPage, "Name a release");
      // A page that says so, how to cite it and where its exports are: not the API's JSON.
      expect(new URL(editorPage.url()).pathname).toBe("/desk/release");
      await expect(editorPage.getByRole("status").textContent()).resolves.toContain("Release named");
      await expect(editorPage.getByRole("heading", { level: 1 }).textContent()).resolves.toBe(
        "Release desk-release-1",
      );
      const release = await json("/releases/desk-release-1");
      expect(release.createdBy).toBe("test-writer");
      await expect(
        editorPage.locator("code", { hasText: "incident-ledger release" }).textContent(),
      ).resolves.toBe(release.citation);
      const exportLink = editorPage.getByRole("link", { name: "incidents.csv" });
      expect(await exportLink.getAttribute("href")).toBe(release.links.incidentsCsv);
      await editorPage.screenshot({ path: join(SHOTS, "release-named.png"), fullPage: true });
      // The page a release answers with passes axe too (named in the checking page: another name).
      await expectAccessible(browser, editor, `${archive.url}/desk/release`, async (p) => {
        await fill(p, { name: "desk-release-axe", note: "" });
        await submit(p, "Name a release");
      });
      // The same form sent again: the same release, said so, nothing new stored.
      await editorPage.goto(`${archive.url}/desk/release`);
      await fill(editorPage, { name: "desk-release-1", note: "Named from the desk" });
      await submit(editorPage, "Name a release");
      await expect(editorPage.getByRole("status").textContent()).resolves.toContain(
        "This release was already named",
      );
      expect(((await json("/releases")) as { items: { name: string }[] }).items.map((r) => r.name)).toEqual([
        "desk-release-1",
        "desk-release-axe",
      ]);
      // Another note under that name is another release: the name is taken, said beside it.
      await editorPage.goto(`${archive.url}/desk/release`);
      await fill(editorPage, { name: "desk-release-1", note: "Something else" });
      await submit(editorPage, "Name a release");
      await expect(editorPage.locator(".error-summary").textContent()).resolves.toContain("already taken");
    } finally {
      await editor.close();
    }
  });

  it("keeps what was typed: Back to a form puts it back, and a form sent after the session ended comes back filled in", async () => {
    const typed = {
      "attributedTo.name": "Pavlo Kyrylenko",
      "attributedTo.role": "Governor of Donetsk Oblast",
      "data.quote": "Typed while the session ended.",
      "source.publisher": "Associated Press",
      "source.url": "https://apnews.example/kramatorsk",
    };
    const values = async () =>
      Object.fromEntries(
        await Promise.all(
          Object.keys(typed).map(async (name) => [name, await page.locator(`[name="${name}"]`).inputValue()]),
        ),
      );
    const stance = page.locator('[name="data.stance"][value="condemns"]');
    await openForm("Record a statement");
    await fill(page, { ...typed, "data.stance": "condemns" });
    // Away and back: the browser puts back what was typed (the page is fetched again, no-store).
    await page.goto(`${archive.url}/`);
    await page.goBack();
    await page.waitForLoadState("load");
    // A private person's name and role are not remembered by the browser for other forms.
    const unremembered = page.locator("input[autocomplete=off]");
    await expect(unremembered.evaluateAll((inputs) => inputs.map((i) => i.name))).resolves.toEqual([
      "attributedTo.name",
      "attributedTo.role",
    ]);
    expect(await values()).toEqual({ ...typed, "attributedTo.name": "", "attributedTo.role": "" });
    await expect(stance.isChecked()).resolves.toBe(true);
    await fill(page, typed);

    // Signed out in another tab, the form is sent: nothing stored, what was typed held in the answer.
    const before = (await events()).length;
    const other = await rita.newPage();
    await other.goto(`${archive.url}/desk`);
    await submit(other, "Sign out");
    await submit(page, "Record a statement");
    await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toBe("Not signed in");
    expect((await events()).length).toBe(before);
    // Signed in again there, sent again from here: the form, filled in, for the new session.
    await signIn(other, archive.url, WRITER.token);
    await other.close();
    await submit(page, "Send it again");
    await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toBe("Record a statement");
    await expect(page.locator(".error-summary").textContent()).resolves.toContain(
      "made for an earlier session",
    );
    expect(await values()).toEqual(typed);
    await expect(stance.isChecked()).resolves.toBe(true);
    expect((await events()).length).toBe(before);
    await submit(page, "Record a statement");
    expect(await expectAtNewEvent()).toMatchObject({
      data: { quote: typed["data.quote"], stance: "condemns" },
    });
  });

  it("ends the session on sign-out", async () => {
    // The address typed: a page whose button signs out (a GET changes nothing).
    await page.goto(`${archive.url}/sign-out`);
    await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toBe("Sign out");
    await expect(page.getByRole("button", { name: "Sign out" }).count()).resolves.toBe(1);
    await page.goto(`${archive.url}/view/${INCIDENT}`);
    const formToken = await page.locator('[data-desk] [name="formToken"]').inputValue();
    await Promise.all([
      page.waitForResponse((r) => r.request().method() === "POST"),
      page.getByRole("button", { name: "Sign out" }).first().click(),
    ]);
    await page.waitForLoadState("load");
    await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toBe("Signed out");
    expect((await rita.cookies()).map((c) => c.name)).not.toContain("ledger_session");
    await page.goto(`${archive.url}/desk/new`);
    expect(new URL(page.url()).pathname).toBe("/sign-in");
    const late = await rita.request.post(formUrl("denial"), {
      form: { formToken, "data.claim": "x", "attributedTo.name": "x", "source.publisher": "x" },
      headers: { origin: archive.url },
      maxRedirects: 0,
    });
    expect(late.status()).toBe(403);
    await page.goto(`${archive.url}/view/${INCIDENT}`);
    await expect(page.locator("[data-desk]").textContent()).resolves.toContain("sign in");
    await page.goto(`${archive.url}/sign-out`);
    await expect(page.locator("main").textContent()).resolves.toContain("You are not signed in");
  });
});

// biome-ignore lint/suspicious/noExplicitAny: a browser global used inside page.evaluate.
declare const document: any;
