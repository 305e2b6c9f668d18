import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { LedgerError } from "../errors.js";
import {
  type Authenticator,
  groupsOf,
  jwtAuthorizerClaims,
  parseUsersFile,
  principalFromClaims,
  requireRole,
  tokenUsers,
} from "./auth.js";

const users = tokenUsers([
  { name: "ana", token: "ana-token-0123456789", roles: ["writer"] },
  { name: "eve", token: "eve-token-0123456789", roles: ["editor"] },
  { name: "rita", token: "rita-token-0123456789", roles: ["restricted-reader"] },
]);

/** A route that needs `role`, answering the caller's name or the error's status. */
function appNeeding(authenticate: Authenticator, role: "writer" | "editor" | "restricted-reader") {
  const app = new Hono();
  app.post("/", (c) => c.text(requireRole(authenticate, c, role, "this").name));
  app.onError((error, c) => c.text(error.message, (error as LedgerError).status as 401));
  return app;
}
const post = (app: Hono, token?: string) =>
  app.request("/", { method: "POST", headers: token ? { authorization: `Bearer ${token}` } : {} });

describe("roles", () => {
  it("given a writer's token, when a writer's act is asked, then the writer is named", async () => {
    const answer = await post(appNeeding(users, "writer"), "ana-token-0123456789");
    expect(answer.status).toBe(200);
    expect(await answer.text()).toBe("ana");
  });

  it("given an editor, when a writer's act is asked, then the editor may (an editor writes too)", async () => {
    expect((await post(appNeeding(users, "writer"), "eve-token-0123456789")).status).toBe(200);
  });

  it("given a writer, when an editor's act is asked, then 403 names the role", async () => {
    const answer = await post(appNeeding(users, "editor"), "ana-token-0123456789");
    expect(answer.status).toBe(403);
    expect(await answer.text()).toContain("editor role");
  });

  it("given a restricted-reader only, when a write is asked, then 403", async () => {
    expect((await post(appNeeding(users, "writer"), "rita-token-0123456789")).status).toBe(403);
  });

  it("given no or a wrong token, then 401 with WWW-Authenticate", async () => {
    const none = await post(appNeeding(users, "writer"));
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toContain("Bearer");
    expect((await post(appNeeding(users, "writer"), "nobody-0123456789")).status).toBe(401);
  });
});

describe("LEDGER_USERS", () => {
  it("reads one user a line, skipping blanks and comments", () => {
    const parsed = parseUsersFile(
      '# desk users\n{"name":"ana","token":"ana-token-0123456789","roles":["writer"]}\n\n{"name":"eve","token":"eve-token-0123456789","roles":["editor","restricted-reader"]}\r\n',
    );
    expect(parsed.map((u) => u.name)).toEqual(["ana", "eve"]);
  });

  it.each([
    ["not json", "line 1 is not JSON"],
    ['{"name":"a","token":"short","roles":[]}', '"token"'],
    ['{"name":"a","token":"long-enough-token-1","roles":["admin"]}', '"roles"'],
    ['{"token":"long-enough-token-1","roles":[]}', '"name"'],
  ])("refuses %s, naming the line and field, never the token", (line, message) => {
    expect(() => parseUsersFile(line)).toThrow(message);
    try {
      parseUsersFile(line);
    } catch (error) {
      expect(String(error)).not.toContain("long-enough-token-1");
    }
  });

  it("refuses a name or a token given twice", () => {
    const a = '{"name":"a","token":"token-aaaaaaaaaaaa","roles":[]}';
    expect(() => parseUsersFile(`${a}\n${a}`)).toThrow("given twice");
    expect(() => parseUsersFile(`${a}\n{"name":"b","token":"token-aaaaaaaaaaaa","roles":[]}`)).toThrow(
      "another user",
    );
  });
});

describe("claims from the authorizer", () => {
  it.each([
    [
      ["writer", "editor"],
      ["editor", "writer"],
    ],
    ["[writer editor]", ["editor", "writer"]],
    ["restricted-reader", ["restricted-reader"]],
    [undefined, []],
  ])("groups %j give roles %j", (groups, roles) => {
    const who = principalFromClaims({ sub: "u-1", email: "a@example.org", "cognito:groups": groups });
    expect([...(who?.roles ?? [])].sort()).toEqual([...roles].sort());
    expect(who?.name).toBe("a@example.org (u-1)");
  });

  it("reads another issuer's claim when named", () => {
    expect(groupsOf("a, b")).toEqual(["a", "b"]);
    const who = principalFromClaims({ sub: "u-2", roles: ["writer"] }, "roles");
    expect([...(who?.roles ?? [])]).toEqual(["writer"]);
  });

  it("reads the claims API Gateway passes in the Lambda event", async () => {
    const app = appNeeding(jwtAuthorizerClaims(), "editor");
    const env = {
      event: {
        requestContext: { authorizer: { jwt: { claims: { sub: "u-3", "cognito:groups": "[editor]" } } } },
      },
    };
    const answer = await app.request("/", { method: "POST" }, env);
    expect(answer.status).toBe(200);
    const without = await app.request("/", { method: "POST" }, { event: { requestContext: {} } });
    expect(without.status).toBe(401);
  });
});
