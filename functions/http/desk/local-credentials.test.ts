import { randomBytes } from "node:crypto";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { LocalUser } from "../auth.js";
import { LocalCredentials } from "./local-credentials.js";
import { Sessions } from "./session.js";

const key = new Uint8Array(randomBytes(32));
const RITA: LocalUser = { name: "Rita", token: "rita-token-0123456789", roles: ["writer"] };
const EDDIE: LocalUser = { name: "Eddie", token: "eddie-token-0123456789", roles: ["editor"] };

describe("local credentials", () => {
  it("given a configured token, then sign-in names its user and a fingerprint that is not the token", () => {
    const signedIn = new LocalCredentials([RITA, EDDIE], key).signIn(RITA.token);
    expect(signedIn?.who.name).toBe("Rita");
    expect(signedIn?.fingerprint).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(signedIn?.fingerprint).not.toContain(RITA.token);
    expect(new LocalCredentials([RITA], key).signIn("not-a-configured-token")).toBeNull();
  });

  it("given another session key, then the same token has another fingerprint", () => {
    const other = new Uint8Array(randomBytes(32));
    expect(new LocalCredentials([RITA], key).signIn(RITA.token)?.fingerprint).not.toBe(
      new LocalCredentials([RITA], other).signIn(RITA.token)?.fingerprint,
    );
  });

  it("given the users unchanged, then a session's fingerprint holds; changed, it does not", () => {
    const at = new LocalCredentials([RITA, EDDIE], key).signIn(RITA.token);
    if (!at) throw new Error("not signed in");
    expect(new LocalCredentials([EDDIE, RITA], key).holds(at.fingerprint, at.who)).toBe(true);
    // Removed, given another token, renamed, given other roles: each ends the session.
    expect(new LocalCredentials([EDDIE], key).holds(at.fingerprint, at.who)).toBe(false);
    expect(
      new LocalCredentials([{ ...RITA, token: "rita-new-token-0123456789" }], key).holds(
        at.fingerprint,
        at.who,
      ),
    ).toBe(false);
    expect(new LocalCredentials([{ ...RITA, name: "Rita R." }], key).holds(at.fingerprint, at.who)).toBe(
      false,
    );
    expect(
      new LocalCredentials([{ ...RITA, roles: ["writer", "restricted-reader"] }], key).holds(
        at.fingerprint,
        at.who,
      ),
    ).toBe(false);
  });
});

describe("sessions checked against local credentials", () => {
  /** An app that signs in with a token at /in, and says who is signed in at /who. */
  const app = (users: readonly LocalUser[], fingerprinted = true) => {
    const credentials = new LocalCredentials(users, key);
    const sessions = new Sessions(key, null, { credentials });
    return new Hono()
      .post("/in", async (c) => {
        const signedIn = credentials.signIn(await c.req.text());
        if (!signedIn) return c.text("no", 401);
        await sessions.start(c, signedIn.who, fingerprinted ? { fingerprint: signedIn.fingerprint } : {});
        return c.text("in");
      })
      .get("/who", async (c) => c.text((await sessions.read(c))?.who.name ?? "nobody"));
  };
  const cookieOf = async (server: Hono, token: string) =>
    ((await server.request("/in", { method: "POST", body: token })).headers.get("set-cookie") ?? "").split(
      ";",
    )[0] as string;
  const who = async (server: Hono, cookie: string) =>
    (await server.request("/who", { headers: { cookie } })).text();

  it("given a session made before the user's roles changed, then it is read as nobody's", async () => {
    const cookie = await cookieOf(app([RITA]), RITA.token);
    expect(await who(app([RITA]), cookie)).toBe("Rita");
    expect(await who(app([{ ...RITA, roles: ["editor"] }]), cookie)).toBe("nobody");
  });

  it("given a session without a fingerprint, then nothing vouches for it and it is nobody's", async () => {
    const cookie = await cookieOf(app([RITA], false), RITA.token);
    expect(await who(app([RITA]), cookie)).toBe("nobody");
  });
});
