import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Role } from "../../functions/http/auth.js";
import type { LocalServer } from "../../functions/local/server.js";
import { TOKEN } from "../support/archive.js";
import { formTokenOf, signInOverHttp, startDeskArchive, WRITER } from "./desk-kit.js";

/**
 * A local desk session lasts only while the token it was signed in with is configured as it
 * was: the server restarted (same DATA_DIR, so the same session key) with another LEDGER_TOKEN,
 * a user removed from LEDGER_USERS or given other roles, and their old cookies are signed out —
 * sent to sign in, their posts refused, nothing stored — as their old tokens get 401 from the
 * API. A user whose token is unchanged stays signed in across the restart.
 */

const EDDIE = { name: "Editor Eddie", token: "eddie-token-0123456789", roles: ["editor"] as Role[] };
const UNA = { name: "Una Leaving", token: "una-token-0123456789ab", roles: ["writer"] as Role[] };
const RITA = { ...WRITER, roles: [...WRITER.roles] as Role[] };
const NEW_TOKEN = "another-ledger-token-0123456789";

/** The name a desk page says is signed in, or null. */
const signedInAs = (html: string) =>
  /Signed in as <strong><bdi>([^<]*)<\/bdi><\/strong>/.exec(html)?.[1] ?? null;

const dataDir = mkdtempSync(join(tmpdir(), "ledger-desk-sessions-"));
let archive: LocalServer | undefined;
/** Each person's cookie and form token, from before the restart. */
const before = new Map<string, { cookie: string; formToken: string }>();

beforeAll(async () => {
  const first = await startDeskArchive({ dataDir, users: [RITA, EDDIE, UNA] });
  try {
    for (const [who, token] of [
      ["local-writer", TOKEN],
      [RITA.name, RITA.token],
      [EDDIE.name, EDDIE.token],
      [UNA.name, UNA.token],
    ] as const) {
      const cookie = await signInOverHttp(first.url, token);
      const desk = await fetch(`${first.url}/desk`, { headers: { cookie } });
      expect(signedInAs(await desk.text()), who).toBe(who === "local-writer" ? "test-writer" : who);
      before.set(who, { cookie, formToken: await formTokenOf(first.url, cookie) });
    }
  } finally {
    await first.close();
  }
  // The same archive, restarted: another LEDGER_TOKEN, Una removed, Eddie a writer only.
  archive = await startDeskArchive({
    dataDir,
    token: NEW_TOKEN,
    users: [RITA, { ...EDDIE, roles: ["writer"] }],
  });
});

afterAll(async () => {
  await archive?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const url = (path: string) => `${archive?.url}${path}`;

/** An opening sent with the cookie and form token someone held before the restart. */
async function openWith(who: string, incidentId: string): Promise<Response> {
  const { cookie, formToken } = before.get(who) ?? { cookie: "", formToken: "" };
  return fetch(url("/desk/new"), {
    method: "POST",
    headers: { cookie, origin: archive?.url ?? "", "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      formToken,
      eventId: `${incidentId}-opened`,
      incidentId,
      "data.title": "Shelling of a market",
      "data.kind": "shelling",
      "data.location.name": "Central market",
      "data.location.country": "UA",
      "source.publisher": "Associated Press",
    }),
    redirect: "manual",
  });
}

describe("a local session after the configured users change", () => {
  it.each([
    ["local-writer", "LEDGER_TOKEN changed"],
    [EDDIE.name, "their roles changed"],
    [UNA.name, "removed from LEDGER_USERS"],
  ])("signs %s out (%s): sent to sign in, the post refused, nothing stored", async (who) => {
    const { cookie } = before.get(who) ?? { cookie: "" };
    const desk = await fetch(url("/desk/new"), { headers: { cookie }, redirect: "manual" });
    expect(desk.status).toBe(303);
    expect(desk.headers.get("location")).toBe("/sign-in?next=%2Fdesk%2Fnew");
    const incidentId = `after-restart-${who.toLowerCase().replace(/[^a-z]+/g, "-")}`;
    const posted = await openWith(who, incidentId);
    expect(posted.status).toBe(403);
    expect(await posted.text()).toContain("Your session has ended");
    expect((await fetch(url(`/incidents/${incidentId}`))).status).toBe(404);
    const home = await fetch(url("/desk"), { headers: { cookie }, redirect: "manual" });
    expect(home.status).toBe(303);
  });

  it("answers the old LEDGER_TOKEN 401 on the API too, and takes the new one at sign-in", async () => {
    const api = await fetch(url("/incidents/old-token-2022/events"), {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: "{}",
    });
    expect(api.status).toBe(401);
    const cookie = await signInOverHttp(archive?.url ?? "", NEW_TOKEN);
    expect((await fetch(url("/desk/new"), { headers: { cookie }, redirect: "manual" })).status).toBe(200);
  });

  it("keeps a user whose token, name and roles are unchanged signed in across the restart", async () => {
    const { cookie } = before.get(RITA.name) ?? { cookie: "" };
    const desk = await fetch(url("/desk"), { headers: { cookie } });
    expect(signedInAs(await desk.text())).toBe(RITA.name);
    const posted = await openWith(RITA.name, "after-restart-rita");
    expect(posted.status).toBe(303);
    expect((await fetch(url("/incidents/after-restart-rita"))).status).toBe(200);
  });
});
