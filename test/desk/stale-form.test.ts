import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalServer } from "../../functions/local/server.js";
import { BROWSER_ACCEPT, opened, post } from "../support/archive.js";
import { formTokenOf, signInOverHttp, startDeskArchive, WRITER } from "./desk-kit.js";

/**
 * A form outlives its session: signed out (or timed out) while typing, a person signs in again
 * and sends the form the browser kept. Nothing they typed is lost, and it stores one event.
 */
const INCIDENT = "desk-stale-2022-04-08";
let archive: LocalServer;
beforeAll(async () => {
  archive = await startDeskArchive();
  expect((await post(archive.url, INCIDENT, opened("stale-opened"))).status).toBe(201);
});
afterAll(() => archive?.close());

const formPath = `/desk/incidents/${INCIDENT}/statement`;
const events = async () =>
  ((await (await fetch(`${archive.url}/incidents/${INCIDENT}/events`)).json()) as { items: unknown[] }).items
    .length;

describe("a form made for an earlier session", () => {
  it("comes back with what it holds and a token of this session; sent again, it stores one event", async () => {
    const earlier = await signInOverHttp(archive.url, WRITER.token);
    const staleToken = await formTokenOf(archive.url, earlier, formPath);
    const typed = {
      eventId: "desk-stale-statement-1",
      "attributedTo.name": "Pavlo Kyrylenko",
      "data.quote": "Typed before the session ended.",
      "data.stance": "neutral",
      "source.publisher": "Associated Press",
    };
    const send = (cookie: string, formToken: string) =>
      fetch(`${archive.url}${formPath}`, {
        method: "POST",
        headers: { cookie, origin: archive.url, accept: BROWSER_ACCEPT },
        body: new URLSearchParams({ ...typed, formToken }),
        redirect: "manual",
      });
    const before = await events();

    // Signed out: nothing stored, and what was typed held in the page, to be sent again.
    const signedOut = await send("", staleToken);
    expect(signedOut.status).toBe(403);
    expect(signedOut.headers.get("cache-control")).toBe("no-store");
    const held = await signedOut.text();
    expect(held).toContain("What you typed is kept in this page");
    expect(held).toContain(`<form method="post" action="${formPath}">`);
    for (const [name, value] of Object.entries({ ...typed, formToken: staleToken }))
      expect(held).toContain(`<input type="hidden" name="${name}" value="${value}"/>`);

    // Signed in again: the old form comes back whole, with this session's token.
    const now = await signInOverHttp(archive.url, WRITER.token);
    const refused = await send(now, staleToken);
    expect(refused.status).toBe(403);
    const html = await refused.text();
    expect(html).toContain("made for an earlier session, so nothing was stored");
    expect(html).toContain("Typed before the session ended.");
    expect(html).toContain('value="desk-stale-statement-1"');
    expect(await events()).toBe(before);
    const fresh = /name="formToken" value="([^"]+)"/.exec(html)?.[1] ?? "";
    expect(fresh).not.toBe(staleToken);
    const stored = await send(now, fresh);
    expect(stored.status).toBe(303);
    expect(await events()).toBe(before + 1);
    // Without any token it is refused outright, storing nothing more.
    const none = await send(now, "");
    expect(none.status).toBe(403);
    expect(await none.text()).toContain("This form was not made for your session");
    expect(await events()).toBe(before + 1);
  });
});
