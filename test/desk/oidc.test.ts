import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OidcClient } from "../../functions/http/desk/oidc.js";
import { Sessions } from "../../functions/http/desk/session.js";
import { pagesApp } from "../../functions/http/routes/site.js";
import { siteDocuments } from "../../functions/http/site-documents.js";
import type { LocalServer } from "../../functions/local/server.js";
import { silentLogger } from "../../functions/logger.js";
import { opened, post, startArchive } from "../support/archive.js";
import { startTestIssuer } from "./test-issuer.js";

/**
 * Signing in as in AWS: the pages app (as the pages Lambda serves it) with the OpenID Connect
 * authorization code flow and PKCE against a small issuer run here; the ID token verified by
 * jose against the issuer's JWKS (signature, issuer, audience, expiry, nonce); groups → roles.
 * A client that follows redirects and keeps cookies plays the browser.
 */

const CLIENT_ID = "desk-test-client";
let archive: LocalServer;
let issuer: Awaited<ReturnType<typeof startTestIssuer>>;
let pages: { url: string; close: () => Promise<void> };

beforeAll(async () => {
  [archive, issuer] = await Promise.all([startArchive(), startTestIssuer(CLIENT_ID)]);
  await post(archive.url, "oidc-incident", opened("oidc-opened-1"));
  const key = new Uint8Array(randomBytes(32));
  const app = pagesApp({
    ...archive.ledger.pageDeps(siteDocuments()),
    log: silentLogger,
    desk: {
      signIn: {
        kind: "oidc",
        client: new OidcClient({
          issuer: issuer.issuer,
          clientId: CLIENT_ID,
          logoutUrl: `${issuer.issuer}/logout`,
        }),
      },
      sessions: new Sessions(key, archive.ledger.deskRevocations),
      flowKey: key,
      log: silentLogger,
    },
  });
  const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  pages = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
});

afterAll(async () => {
  await pages?.close();
  await issuer?.close();
  await archive?.close();
});

/** A browser, roughly: follows redirects by hand, keeps each origin's cookies. */
class Browser {
  readonly jar = new Map<string, Map<string, string>>();
  async go(url: string, init: RequestInit = {}): Promise<{ status: number; url: string; text: string }> {
    let target = url;
    let request = init;
    for (let hop = 0; hop < 10; hop++) {
      const origin = new URL(target).origin;
      const cookies = this.jar.get(origin) ?? new Map();
      const answer = await fetch(target, {
        ...request,
        redirect: "manual",
        headers: {
          ...(request.headers as Record<string, string>),
          ...(cookies.size ? { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join("; ") } : {}),
        },
      });
      for (const line of answer.headers.getSetCookie()) {
        const [pair = "", ...attrs] = line.split(";");
        const [name = "", value = ""] = pair.split("=");
        if (value === "" || attrs.some((a) => /max-age=0/i.test(a))) cookies.delete(name.trim());
        else cookies.set(name.trim(), value);
      }
      this.jar.set(origin, cookies);
      const location = answer.headers.get("location");
      if (answer.status >= 300 && answer.status < 400 && location) {
        target = new URL(location, target).href;
        request = {};
        continue;
      }
      return { status: answer.status, url: target, text: await answer.text() };
    }
    throw new Error("too many redirects");
  }
  session = () => this.jar.get(pages.url)?.get("ledger_session");
}

const formToken = (html: string) => /name="formToken" value="([^"]+)"/.exec(html)?.[1] ?? "";

describe("the desk's OpenID Connect sign-in", () => {
  it("signs a writer in through the issuer with PKCE, and records under their name", async () => {
    issuer.state.tamper = null;
    issuer.state.user = { sub: "alice-sub", email: "alice@example.org", groups: ["writer"] };
    const browser = new Browser();
    const landed = await browser.go(`${pages.url}/sign-in?next=/desk/new`);
    expect(landed.url).toBe(`${pages.url}/desk/new`);
    expect(landed.status).toBe(200);
    expect(landed.text).toContain("alice@example.org (alice-sub)");
    expect(browser.session()).toBeDefined();
    // The pending sign-in's cookie is gone once used.
    expect(browser.jar.get(pages.url)?.has("ledger_sign_in")).toBe(false);

    const form = await browser.go(`${pages.url}/desk/incidents/oidc-incident/statement`);
    const eventId = /name="eventId" value="([^"]+)"/.exec(form.text)?.[1] ?? "";
    const body = new URLSearchParams({
      formToken: formToken(form.text),
      eventId,
      "attributedTo.name": "A spokesperson",
      "data.quote": "Said through the desk, signed in with OIDC.",
      "data.stance": "neutral",
      "source.publisher": "Reuters",
    });
    const stored = await browser.go(`${pages.url}/desk/incidents/oidc-incident/statement`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: pages.url },
      body: body.toString(),
    });
    expect(stored.url).toBe(`${pages.url}/view/oidc-incident?recorded=${eventId}#ev-${eventId}`);
    const events = (await (await fetch(`${archive.url}/incidents/oidc-incident/events`)).json()) as {
      items: { eventId: string; recordedBy: string }[];
    };
    expect(events.items.find((e) => e.eventId === eventId)?.recordedBy).toBe("alice@example.org (alice-sub)");

    const out = await browser.go(`${pages.url}/sign-out`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: pages.url },
      body: new URLSearchParams({ formToken: formToken(stored.text) }).toString(),
    });
    expect(out.text).toContain(`${issuer.issuer}/logout`);
    expect(browser.session()).toBeUndefined();
  });

  it("refuses a form that cannot be read whole (a category given twice), storing nothing", async () => {
    issuer.state.tamper = null;
    issuer.state.user = { sub: "alice-sub", email: "alice@example.org", groups: ["writer"] };
    const browser = new Browser();
    const form = await browser.go(`${pages.url}/sign-in?next=/desk/incidents/oidc-incident/casualties`);
    const events = async () =>
      ((await (await fetch(`${archive.url}/incidents/oidc-incident/events`)).json()) as { items: unknown[] })
        .items.length;
    const before = await events();
    const answer = await browser.go(`${pages.url}/desk/incidents/oidc-incident/casualties`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: pages.url },
      body: new URLSearchParams({
        formToken: formToken(form.text),
        eventId: "twice-category-0001",
        "figures[0].category": "killed",
        "figures[0].form": "exact",
        "figures[0].value": "12",
        "figures[1].category": "killed",
        "figures[1].form": "exact",
        "figures[1].value": "15",
        "attributedTo.name": "Police",
        "source.publisher": "Reuters",
      }).toString(),
    });
    expect(answer.status).toBe(422);
    expect(answer.text).toContain("Figure 2: category is given in figure 1 too");
    expect(await events()).toBe(before);
  });

  it.each([
    ["audience", 'unexpected "aud" claim value'],
    ["issuer", 'unexpected "iss" claim value'],
    ["expired", '"exp" claim timestamp check failed'],
    ["foreign-key", "signature verification failed"],
    ["nonce", "answers another sign-in"],
  ] as const)("refuses an ID token with a wrong %s, and starts no session", async (tamper, reason) => {
    issuer.state.tamper = tamper;
    const browser = new Browser();
    const answer = await browser.go(`${pages.url}/sign-in`);
    expect(answer.status).toBe(401);
    expect(answer.text.replaceAll("&quot;", '"')).toContain(reason);
    expect(browser.session()).toBeUndefined();
    issuer.state.tamper = null;
  });

  it("refuses a callback that this browser did not start (state), without asking the issuer", async () => {
    const before = issuer.state.tokenRequests;
    const browser = new Browser();
    const answer = await browser.go(`${pages.url}/sign-in/callback?code=stolen&state=guessed`);
    expect(answer.status).toBe(400);
    expect(browser.session()).toBeUndefined();
    expect(issuer.state.tokenRequests).toBe(before);
  });

  it("maps groups to roles: a user in no writer group gets no form", async () => {
    issuer.state.user = { sub: "bob-sub", email: "bob@example.org", groups: ["restricted-reader"] };
    const browser = new Browser();
    const landed = await browser.go(`${pages.url}/sign-in?next=/desk`);
    expect(landed.text).toContain("bob@example.org (bob-sub)");
    // The desk lists the incidents to read, not to add to: there is nothing bob may add.
    expect(landed.text).toContain("<h2>Recent incidents</h2>");
    expect(landed.text).not.toContain("Add to an incident");
    expect((await browser.go(`${pages.url}/desk/new`)).status).toBe(403);
    const page = await browser.go(`${pages.url}/view/oidc-incident`);
    expect(page.text).toContain("Your roles let you read only.");
    // Signed in, the page is this reader's (their form token; restricted values for this
    // restricted-reader): never stored. Without the cookie it is the public page, kept apart
    // from the other by Vary: Cookie.
    const signedIn = await fetch(`${pages.url}/view/oidc-incident`, {
      headers: { cookie: `ledger_session=${browser.session()}` },
    });
    expect(signedIn.headers.get("cache-control")).toBe("private, no-store");
    expect(signedIn.headers.get("vary")).toMatch(/cookie/i);
    const anonymous = await fetch(`${pages.url}/view/oidc-incident`);
    expect(anonymous.headers.get("cache-control")).toBe("no-cache");
    expect(anonymous.headers.get("vary")).toMatch(/cookie/i);
  });
});
