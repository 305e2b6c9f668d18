import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalServer } from "../../functions/local/server.js";
import { call, TOKEN } from "../support/archive.js";
import {
  expectAccessible,
  fill,
  launchChromium,
  newPerson,
  SHOTS,
  signIn,
  startDeskArchive,
  submit,
  WRITER,
} from "./desk-kit.js";

/**
 * The desk's evidence form in Chromium: a file chosen in the browser goes through the API's
 * own POST /evidence (hashed as it arrives, the same limit) and its capture is appended. Without
 * JavaScript it is a plain multipart form; with it, the upload's progress fills a <progress>.
 * Each refusal (no file, an empty one, one over the limit, wrong fields) names its field and
 * keeps neither bytes nor an event.
 */

const INCIDENT = "desk-evidence-2022-04-08";
const LIMIT = 512 * 1024;
const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

let archive: LocalServer;
let browser: Browser;
let rita: BrowserContext;
let page: Page;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  [archive, browser] = await Promise.all([startDeskArchive({ evidenceMax: LIMIT }), launchChromium()]);
  const opened = await call(
    archive.url,
    "POST",
    `/incidents/${INCIDENT}/events`,
    {
      type: "IncidentOpened",
      source: { publisher: "Associated Press" },
      data: {
        title: "Strike on a station",
        kind: "missile-strike",
        location: { name: "Station", country: "UA" },
      },
    },
    { authorization: `Bearer ${TOKEN}` },
  );
  expect(opened.status).toBe(201);
  rita = await newPerson(browser);
  page = await rita.newPage();
  await signIn(page, archive.url, WRITER.token);
});

afterAll(async () => {
  await rita?.close();
  await browser?.close();
  await archive?.close();
});

// biome-ignore lint/suspicious/noExplicitAny: answers read loosely, asserted on.
const json = async (path: string): Promise<any> => (await fetch(`${archive.url}${path}`)).json();
const events = async () => (await json(`/incidents/${INCIDENT}/events`)).items as Record<string, unknown>[];
const form = () => `${archive.url}/desk/incidents/${INCIDENT}/evidence`;
const held = async (digest: string) => (await fetch(`${archive.url}/evidence/${digest}`)).status;

/** A file as the person chooses it. */
const file = (name: string, mimeType: string, buffer: Buffer) => ({ name, mimeType, buffer });

/** After a post: the incident page at the new capture, which it shows; the capture as stored. */
async function expectCaptured(on: Page): Promise<Record<string, unknown>> {
  const url = new URL(on.url());
  if (url.pathname !== `/view/${INCIDENT}`)
    throw new Error(`not stored: ${await on.locator(".error-summary").textContent()}`);
  const eventId = url.hash.replace(/^#ev-/, "");
  const stored = (await events()).find((e) => e.eventId === eventId);
  expect(stored, `capture ${eventId} stored`).toMatchObject({
    type: "EvidenceCaptured",
    recordedBy: WRITER.name,
  });
  await expect(on.locator(`#ev-${eventId}`).count()).resolves.toBe(1);
  return stored as Record<string, unknown>;
}

describe("the evidence form", () => {
  it("is offered on the incident page and passes axe", async () => {
    await page.goto(`${archive.url}/view/${INCIDENT}`);
    await expect(page.getByRole("link", { name: "Attach evidence", exact: true }).count()).resolves.toBe(1);
    const answer = await page.goto(form());
    await expect(page.locator("form.desk-form").getAttribute("enctype")).resolves.toBe("multipart/form-data");
    // The one script is the desk's own file; the policy allows no inline one.
    const csp = answer?.headers()["content-security-policy"] ?? "";
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain("unsafe-inline");
    await expect(
      page.locator("script").evaluateAll((scripts) => scripts.map((s) => s.getAttribute("src"))),
    ).resolves.toEqual(["/desk/upload.js"]);
    await page.screenshot({ path: join(SHOTS, "form-evidence.png"), fullPage: true });
    await expectAccessible(browser, rita, form());
  });

  it("uploads a PDF as a plain multipart form (no JavaScript), stored under the file's own SHA-256", async () => {
    const pdf = Buffer.concat([
      Buffer.from("%PDF-1.4\n% desk test\n"),
      randomBytes(20_000),
      Buffer.from("\n%%EOF\n"),
    ]);
    await page.goto(form());
    // Without the script there is no progress bar of the form's own: the browser shows its progress.
    await expect(page.locator("#upload").isVisible()).resolves.toBe(false);
    await page.getByLabel("File", { exact: true }).setInputFiles(file("report.pdf", "application/pdf", pdf));
    await fill(page, {
      "data.kind": "document",
      "data.title": "Police report on the strike",
      "data.sourceUrl": "https://example.org/report.pdf",
      "source.publisher": "Regional police",
    });
    await submit(page, "Attach evidence");
    const stored = await expectCaptured(page);
    expect(stored.data).toEqual({
      sha256: sha256(pdf),
      size: pdf.byteLength,
      mediaType: "application/pdf",
      kind: "document",
      title: "Police report on the strike",
      sourceUrl: "https://example.org/report.pdf",
      access: "public",
    });
    const bytes = await fetch(`${archive.url}/evidence/${sha256(pdf)}`);
    expect(bytes.status).toBe(200);
    expect(Buffer.from(await bytes.arrayBuffer()).equals(pdf)).toBe(true);
    const summary = await json(`/incidents/${INCIDENT}`);
    expect(summary.evidence.latest[0]).toMatchObject({ eventId: stored.eventId, sha256: sha256(pdf) });
  });

  it("with JavaScript, shows the upload's progress, then lands at the new capture", async () => {
    const person = await newPerson(browser, { javaScript: true });
    try {
      const js = await person.newPage();
      // A script the page's policy blocked would show here (and the upload would not be enhanced).
      const refused: string[] = [];
      js.on("console", (message) => {
        if (message.type() === "error") refused.push(message.text());
      });
      await signIn(js, archive.url, WRITER.token, `/desk/incidents/${INCIDENT}/evidence`);
      // A real file from disk, chosen as a person chooses it: the browser names its media type.
      const path = join(process.cwd(), "docs/dashboard.png");
      const photo = readFileSync(path);
      await js.getByLabel("File", { exact: true }).setInputFiles(path);
      await js.getByLabel("A photo or image").check();
      await js.getByLabel("Publisher").fill("Associated Press");
      // What the progress element showed, kept across the navigation that follows the upload.
      await js.evaluate(() => {
        const bar = document.getElementById("upload-progress");
        new MutationObserver(() => {
          sessionStorage.setItem(
            "progress",
            JSON.stringify({
              value: bar.value,
              max: bar.max,
              shown: getComputedStyle(document.getElementById("upload")).display !== "none",
            }),
          );
        }).observe(bar, { attributes: true });
      });
      await Promise.all([
        js.waitForURL((url) => url.pathname === `/view/${INCIDENT}` && url.hash.startsWith("#ev-")),
        js.getByRole("button", { name: "Attach evidence", exact: true }).click(),
      ]);
      const stored = await expectCaptured(js);
      expect(stored.data).toMatchObject({
        sha256: sha256(photo),
        size: photo.byteLength,
        mediaType: "image/png",
      });
      const progress = JSON.parse((await js.evaluate(() => sessionStorage.getItem("progress"))) ?? "null");
      // The whole form was sent (the file and its fields), and the bar was shown moving to it.
      expect(progress.shown).toBe(true);
      expect(progress.max).toBeGreaterThan(photo.byteLength);
      expect(progress.value).toBe(progress.max);
      expect(refused).toEqual([]);
    } finally {
      await person.close();
    }
  });

  it("refuses a form without a file, with an empty one, and with one over the limit, keeping nothing", async () => {
    const before = (await events()).length;
    const rest = { "data.kind": "image", "source.publisher": "Associated Press", "data.title": "Kept title" };

    await page.goto(form());
    await fill(page, rest);
    await submit(page, "Attach evidence");
    await expect(page.locator(".error-summary li").allTextContents()).resolves.toEqual([
      "File is required: choose the file to upload",
    ]);
    await expect(page.title()).resolves.toMatch(/^Error: /);
    await expect(page.locator('[name="data.title"]').inputValue()).resolves.toBe("Kept title");
    await page.locator(".error-summary").getByRole("link").click();
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe("f-file");
    await page.screenshot({ path: join(SHOTS, "form-evidence-errors.png"), fullPage: true });

    await page
      .getByLabel("File", { exact: true })
      .setInputFiles(file("empty.txt", "text/plain", Buffer.alloc(0)));
    await submit(page, "Attach evidence");
    await expect(page.locator(".error-summary li").allTextContents()).resolves.toEqual([
      "File is empty: choose a file with something in it",
    ]);

    // Just over: the file is refused, the form's fields kept.
    const over = randomBytes(LIMIT + 1);
    await page
      .getByLabel("File", { exact: true })
      .setInputFiles(file("big.bin", "application/octet-stream", over));
    await submit(page, "Attach evidence");
    await expect(page.locator(".error-summary li").allTextContents()).resolves.toEqual([
      "File must be at most 512 KiB: nothing was stored",
    ]);
    await expect(page.locator('[name="data.title"]').inputValue()).resolves.toBe("Kept title");
    // Far over: the body is not read into the form (413); the message is the same.
    const far = randomBytes(LIMIT * 3);
    await page
      .getByLabel("File", { exact: true })
      .setInputFiles(file("far.bin", "application/octet-stream", far));
    const [answer] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === "POST"),
      page.getByRole("button", { name: "Attach evidence", exact: true }).click(),
    ]);
    expect(answer.status()).toBe(413);
    await page.waitForLoadState("load");
    await expect(page.locator(".error-summary li").allTextContents()).resolves.toEqual([
      "File must be at most 512 KiB: nothing was stored",
    ]);
    expect(await held(sha256(over))).toBe(404);
    expect(await held(sha256(far))).toBe(404);
    expect((await events()).length).toBe(before);

    for (const [chosen, message] of [
      [null, "File is required"],
      [file("empty.txt", "text/plain", Buffer.alloc(0)), "File is empty"],
      [file("big.bin", "application/octet-stream", over), "File must be at most 512 KiB"],
    ] as const)
      await expectAccessible(browser, rita, form(), async (p) => {
        if (chosen) await p.getByLabel("File", { exact: true }).setInputFiles(chosen);
        await fill(p, rest);
        await submit(p, "Attach evidence");
        await expect(p.locator(".error-summary").textContent()).resolves.toContain(message);
      });
  });

  it("refuses wrong fields by name, keeping neither the bytes nor an event", async () => {
    const before = (await events()).length;
    const photo = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47]), randomBytes(5_000)]);
    const wrong = { "data.sourceUrl": "not a web address", "data.capturedAt": "yesterday" };
    await page.goto(form());
    await page.getByLabel("File", { exact: true }).setInputFiles(file("photo.png", "image/png", photo));
    await fill(page, wrong);
    await submit(page, "Attach evidence");
    const messages = await page.locator(".error-summary li").allTextContents();
    expect(messages).toHaveLength(4);
    expect(messages[0]).toMatch(/^What it is/);
    expect(messages[1]).toMatch(/^Captured from/);
    expect(messages[2]).toMatch(/^Captured at/);
    expect(messages[3]).toBe("Publisher is required");
    await expect(page.locator(".has-error .field-error").count()).resolves.toBe(4);
    for (const [name, value] of Object.entries(wrong))
      await expect(page.locator(`[name="${name}"]`).inputValue()).resolves.toBe(value);
    expect(await held(sha256(photo))).toBe(404);
    expect((await events()).length).toBe(before);
    await expectAccessible(browser, rita, form(), async (p) => {
      await p.getByLabel("File", { exact: true }).setInputFiles(file("photo.png", "image/png", photo));
      await fill(p, wrong);
      await submit(p, "Attach evidence");
      // axe's browser runs the upload script: the refusal's page replaces this one's body.
      await p.locator(".error-summary").waitFor();
      await expect(p.locator(".error-summary li").count()).resolves.toBe(4);
    });
    expect(await held(sha256(photo))).toBe(404);
  });

  it("refuses an upload without the form token (403), or to no incident (404), keeping nothing", async () => {
    const bytes = randomBytes(2_000);
    const refused = await rita.request.post(form(), {
      multipart: {
        eventId: "forged-upload-0001",
        "data.kind": "image",
        "source.publisher": "Forgery Weekly",
        file: { name: "x.bin", mimeType: "application/octet-stream", buffer: bytes },
      },
      headers: { origin: archive.url },
      maxRedirects: 0,
    });
    expect(refused.status()).toBe(403);
    expect(await held(sha256(bytes))).toBe(404);
    // With the token, to an incident that does not exist: 404, and the bytes are not kept either.
    await page.goto(form());
    const formToken = await page.locator('form.desk-form [name="formToken"]').inputValue();
    const nowhere = await rita.request.post(`${archive.url}/desk/incidents/no-such-incident-2022/evidence`, {
      multipart: {
        formToken,
        eventId: "nowhere-upload-0001",
        "data.kind": "image",
        "source.publisher": "Associated Press",
        file: { name: "x.bin", mimeType: "application/octet-stream", buffer: bytes },
      },
      headers: { origin: archive.url },
      maxRedirects: 0,
    });
    expect(nowhere.status()).toBe(404);
    expect(await held(sha256(bytes))).toBe(404);
  });
});

// biome-ignore lint/suspicious/noExplicitAny: browser globals used inside page.evaluate.
declare const document: any, sessionStorage: any, MutationObserver: any, getComputedStyle: any;
