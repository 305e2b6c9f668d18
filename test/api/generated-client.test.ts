import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalServer } from "../../functions/local/server.js";
import { startArchive, TOKEN } from "../support/archive.js";

/**
 * What a user does with /openapi.json: generate a typed client (openapi-typescript), write a
 * session against it (test/api-client/session.ts), compile it with `tsc --strict`, run it.
 */
const run = promisify(execFile);
const root = fileURLToPath(new URL("../..", import.meta.url));
const clientDir = fileURLToPath(new URL("../api-client/", import.meta.url));

let archive: LocalServer;
beforeAll(async () => {
  archive = await startArchive();
});
afterAll(async () => {
  await archive?.close();
});

describe("a client generated from /openapi.json", () => {
  it("compiles under tsc --strict with no casts and runs a user's session as the contract says", async () => {
    await run(
      process.execPath,
      [
        "--import",
        "./test/api-client/typescript5-loader.mjs",
        "node_modules/openapi-typescript/bin/cli.js",
        `${archive.url}/openapi.json`,
        "-o",
        "test/api-client/generated/ledger-api.d.ts",
      ],
      { cwd: root },
    );
    const tsc = await run(
      process.execPath,
      ["node_modules/typescript/bin/tsc", "-p", "test/api-client/tsconfig.json"],
      {
        cwd: root,
      },
    ).catch((error: { stdout?: string; code?: number }) => ({
      stdout: error.stdout ?? "",
      code: error.code,
    }));
    expect(tsc.stdout).toBe("");

    const code = readFileSync(`${clientDir}session.ts`, "utf8")
      .split("\n")
      .filter((line) => !/^\s*(\/\/|\*|\/\*\*)/.test(line))
      .join("\n");
    expect(code).not.toMatch(/\sas\s|<any>|:\s*any\b|@ts-/);

    // Not a static import: the root type-check must not follow it into the generated types.
    const sessionModule = "../api-client/session.ts";
    const { userSession } = await import(/* @vite-ignore */ sessionModule);
    const log = await userSession(archive.url, TOKEN, "generated-client-market");
    expect(log.statuses).toEqual({
      open: 201,
      report: 201,
      repost: 200,
      batch: 201,
      stale: 409,
      read: 200,
      list: 200,
      page: 200,
      verify: 200,
    });
    expect([log.etag, log.location]).toEqual(['"4"', "/incidents/generated-client-market"]);
    expect(log.conflictCurrentVersion).toBe(4);
    expect(log).toMatchObject({
      placeName: "Central market",
      killedLow: 50,
      latestQuote: "A deliberate attack on civilians.",
      denialQuote: "Our forces did not strike the market.",
      figuresInEvents: 3,
      eventTypes: ["IncidentOpened", "CasualtiesReported", "StatementMade", "DenialIssued"],
      pagesRead: 2,
      listedIds: ["generated-client-market"],
      healthy: true,
    });
    expect(log.headHash).toMatch(/^[0-9a-f]{64}$/);
  });
});
