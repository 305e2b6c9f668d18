import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DeleteItemCommand, GetItemCommand, PutItemCommand } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StoredEvent } from "../../events/stored-event.js";
import { formatCheckpoint } from "../../events/transparency/checkpoint.js";
import { hashLeaf } from "../../events/transparency/merkle.js";
import { parseVerifierKey, signNote } from "../../events/transparency/note.js";
import { parsePolicy } from "../../events/transparency/policy.js";
import { type LocalServer, startLocalServer } from "../../functions/local/server.js";
import { keySigner } from "../../functions/log/signer.js";
import { silentLogger } from "../../functions/logger.js";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import { VerificationError } from "../../scripts/verify/checks.js";
import { httpSource } from "../../scripts/verify/source.js";
import type { VerifierState } from "../../scripts/verify/state.js";
import { verifyLog } from "../../scripts/verify/verify-log.js";
import { verifyEventProof } from "../../scripts/verify/verify-proof.js";
import { call, casualties, opened, post, TOKEN } from "../support/archive.js";
import { runVerify } from "../support/run-verify.js";
import { startTestWitness, type TestWitness } from "../support/test-witness.js";

// The verifier against the real archive (dynalite, HTTP server, sequencer, signer), with someone
// holding write access to the tables — and, for the rewrite, the log's own key.
const ORIGIN = "localhost/incident-ledger";
const { privateKey } = generateKeyPairSync("ed25519");
// LEDGER_LOG_KEY's bare form: base64 of the 32-byte Ed25519 seed (the last bytes of its PKCS#8).
const logKeyText = privateKey.export({ format: "der", type: "pkcs8" }).subarray(-32).toString("base64");

function startWithKey(witnesses: TestWitness[] = []): Promise<LocalServer> {
  return startLocalServer({
    port: 0,
    dynamoPort: 0,
    token: TOKEN,
    log: silentLogger,
    writer: "test-writer",
    logKey: logKeyText,
    witnesses: witnesses.map((w) => ({ key: parseVerifierKey(w.vkey), url: w.url })),
  });
}

async function vkeyOf(archive: LocalServer): Promise<string> {
  return ((await call(archive.url, "GET", "/log/vkey")).body as string).trim();
}

/** Posts, then waits until the last event is in a signed checkpoint. */
async function postLogged(archive: LocalServer, incidentId: string, body: unknown): Promise<void> {
  const answer = await post(archive.url, incidentId, body);
  expect([200, 201], JSON.stringify(answer.body)).toContain(answer.status);
  const last = answer.body.events.at(-1).eventId as string;
  const proof = await call(archive.url, "GET", `/incidents/${incidentId}/events/${last}/proof?wait=true`);
  expect(proof.status).toBe(200);
}

async function refusal(run: Promise<unknown>): Promise<string> {
  try {
    await run;
  } catch (e) {
    if (e instanceof VerificationError) return e.message;
    throw e;
  }
  throw new Error("the verifier accepted it");
}

const figures = (killed: number) => ({ killed: { value: killed, qualifier: "exact" } });

describe("npm run verify against the archive", () => {
  let archive: LocalServer;
  let vkey: string;
  beforeAll(async () => {
    archive = await startWithKey();
    vkey = await vkeyOf(archive);
    await postLogged(archive, "verifier-edited", opened());
    await postLogged(archive, "verifier-other", opened());
    await postLogged(archive, "verifier-edited", {
      events: [casualties(figures(50), "A"), casualties(figures(60), "B")],
    });
    await postLogged(archive, "verifier-other", casualties(figures(1), "C"));
  });
  afterAll(() => archive.close());

  it("given the honest archive, then the CLI exits 0 and keeps its checkpoint in the state file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "verify-"));
    const vkeyFile = join(dir, "ledger.vkey");
    writeFileSync(vkeyFile, `${vkey}\n`);
    const state = join(dir, "state.json");
    const run = await runVerify(["--url", archive.url, "--vkey", vkeyFile, "--state", state]);
    expect(run.stdout).toContain(
      "OK localhost/incident-ledger: tree size 5, 5 leaves, 2 incidents, 5 events verified",
    );
    expect(run.code).toBe(0);
    expect((JSON.parse(readFileSync(state, "utf8")) as VerifierState).size).toBe(5);
  });

  it("given the proof routes' answers, then one event checks offline against them, and another event does not", async () => {
    const events = (await call(archive.url, "GET", "/incidents/verifier-edited/events")).body
      .items as StoredEvent[];
    const event = events[1] as StoredEvent;
    const json = await call(archive.url, "GET", `/incidents/verifier-edited/events/${event.eventId}/proof`);
    expect(json.status).toBe(200);
    const logKey = parseVerifierKey(vkey);
    const fromJson = verifyEventProof({ proofText: JSON.stringify(json.body), event, logKey });
    const file = await call(archive.url, "GET", `/log/proof/${fromJson.index}`);
    expect(file.status).toBe(200);
    expect(verifyEventProof({ proofText: file.body as string, event, logKey }).index).toBe(fromJson.index);
    expect(() =>
      verifyEventProof({ proofText: file.body as string, event: events[2] as StoredEvent, logKey }),
    ).toThrow(/not included at index/);
    // The leaf a proof states is another event's: refused, though the event's own leaf is included.
    const forged = {
      eventId: "something-else",
      hash: "0".repeat(64),
      incidentId: "other-incident",
      version: 99,
    };
    const forgedText = JSON.stringify(forged);
    const forgedFile = (file.body as string).replace(
      /^extra .*$/m,
      `extra ${Buffer.from(forgedText).toString("base64")}`,
    );
    expect(forgedFile).not.toBe(file.body);
    for (const proofText of [forgedFile, JSON.stringify({ ...json.body, leaf: forgedText })])
      expect(() => verifyEventProof({ proofText, event, logKey })).toThrow(/the proof states leaf/);
  });

  it("given a named release, then `--release` rebuilds its exports from the feed and exits 0", async () => {
    const created = await call(archive.url, "POST", "/releases", {
      name: "verifier-release",
      note: "for the CLI",
    });
    expect(created.status).toBe(201);
    const run = await runVerify(["--url", archive.url, "--release", "verifier-release", "--vkey", vkey]);
    expect(run.stdout).toContain("release verifier-release: tree size 5");
    expect(run.stdout).toContain("its checkpoint is signed by the log's key");
    expect(run.stdout).not.toContain("FAIL");
    expect(run.code).toBe(0);
    // Another log's key: the release's checkpoint is not one this log signed.
    const other = keySigner(ORIGIN, generateKeyPairSync("ed25519").privateKey).vkey;
    const wrong = await runVerify(["--url", archive.url, "--release", "verifier-release", "--vkey", other]);
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toContain(
      "FAIL its checkpoint: checkpoint signature: no trusted key signed this note",
    );
    const none = await runVerify(["--url", archive.url, "--release", "verifier-release"]);
    expect(none.code).toBe(2);
  });

  it("given an event item edited in the table, then it reports that incident and version", async () => {
    const db = createDynamoClient(archive.dynamoEndpoint);
    const key = { incidentId: { S: "verifier-edited" }, version: { N: "2" } };
    const original =
      (await db.send(new GetItemCommand({ TableName: archive.tables.events, Key: key }))).Item ?? {};
    const item = structuredClone(original);
    const events = item.events?.L ?? [];
    expect(events[1]?.S).toContain('"value":60');
    events[1] = { S: (events[1]?.S ?? "").replace('"value":60', '"value":6') };
    await db.send(new PutItemCommand({ TableName: archive.tables.events, Item: item }));
    try {
      const source = httpSource(archive.url);
      expect(await refusal(verifyLog({ source, logKey: parseVerifierKey(vkey) }))).toMatch(
        /^incident verifier-edited version 3: the event's content does not hash to its stored hash/,
      );
      const cli = await runVerify(["--url", archive.url, "--vkey", vkey]);
      expect(cli.code).toBe(1);
      expect(cli.stderr).toContain("FAIL: incident verifier-edited version 3");
      // A release is rebuilt from the events as served: an edit its stored hash hides is found.
      const release = await runVerify([
        "--url",
        archive.url,
        "--release",
        "verifier-release",
        "--vkey",
        vkey,
      ]);
      expect(release.code).toBe(1);
      expect(release.stdout).toContain(
        "FAIL incident verifier-edited version 3: the event's content does not hash to its stored hash",
      );
    } finally {
      await db.send(new PutItemCommand({ TableName: archive.tables.events, Item: original }));
      db.destroy();
    }
    await expect(
      verifyLog({ source: httpSource(archive.url), logKey: parseVerifierKey(vkey) }),
    ).resolves.toBeTruthy();
  });

  it("given a logged event deleted from the table, then the feed and the verifier name its leaf and event", async () => {
    const db = createDynamoClient(archive.dynamoEndpoint);
    const key = { incidentId: { S: "verifier-edited" }, version: { N: "2" } };
    const original =
      (await db.send(new GetItemCommand({ TableName: archive.tables.events, Key: key }))).Item ?? {};
    await db.send(new DeleteItemCommand({ TableName: archive.tables.events, Key: key }));
    try {
      const feed = await call(archive.url, "GET", "/feed?limit=500");
      expect(feed.status).toBe(500);
      expect(feed.body).toMatchObject({
        type: "/docs#problem-logged-event-missing",
        incidentId: "verifier-edited",
        version: 2,
        detail: expect.stringMatching(
          /^log leaf \d+ names verifier-edited v2 .* which the events table does not hold$/,
        ),
      });
      const cli = await runVerify(["--url", archive.url, "--vkey", vkey]);
      expect(cli.code).toBe(1);
      expect(cli.stderr).toMatch(
        /FAIL: the feed cannot be read \(GET \/feed.* answered 500: log leaf \d+ names verifier-edited v2/,
      );
    } finally {
      await db.send(new PutItemCommand({ TableName: archive.tables.events, Item: original }));
      db.destroy();
    }
  });

  it("refuses a checkpoint put in the table under the log's name by another key", async () => {
    const db = createDynamoClient(archive.dynamoEndpoint);
    const key = { pk: { S: "checkpoint" }, sk: { N: "5" } };
    const original =
      (await db.send(new GetItemCommand({ TableName: archive.tables.log, Key: key }))).Item ?? {};
    expect(original.text?.S).toContain(ORIGIN);
    const impostor = keySigner(ORIGIN, generateKeyPairSync("ed25519").privateKey);
    const root = Buffer.from(original.root?.S ?? "", "base64");
    const forged = await signNote(formatCheckpoint({ origin: ORIGIN, size: 5, root }), [impostor]);
    await db.send(
      new PutItemCommand({ TableName: archive.tables.log, Item: { ...original, text: { S: forged } } }),
    );
    try {
      expect(
        await refusal(verifyLog({ source: httpSource(archive.url), logKey: parseVerifierKey(vkey) })),
      ).toMatch(/^checkpoint signature: no trusted key signed this note/);
    } finally {
      await db.send(new PutItemCommand({ TableName: archive.tables.log, Item: original }));
      db.destroy();
    }
  });
});

describe("an archive rewritten by someone holding the log's key", () => {
  // Archive A is what a reader verified last month; archive B is the operator's rewrite of it,
  // built from scratch with the same key: every chain recomputed, every leaf, tile and checkpoint
  // made and signed afresh. Only the reader's remembered checkpoint can tell.
  let state: VerifierState;
  let rewritten: LocalServer;
  let vkey: string;

  beforeAll(async () => {
    const original = await startWithKey();
    try {
      vkey = await vkeyOf(original);
      await postLogged(original, "rewrite-target", opened("rewrite-opened"));
      await postLogged(original, "rewrite-target", {
        events: [
          casualties(figures(50), "A", "rewrite-event-1"),
          casualties(figures(60), "B", "rewrite-event-2"),
          casualties(figures(70), "C", "rewrite-event-3"),
        ],
      });
      state = (await verifyLog({ source: httpSource(original.url), logKey: parseVerifierKey(vkey) })).state;
      expect(state.size).toBe(4);
    } finally {
      await original.close();
    }
    rewritten = await startWithKey();
    expect(await vkeyOf(rewritten)).toBe(vkey);
  });
  afterAll(() => rewritten.close());

  const verifyWithState = () =>
    verifyLog({ source: httpSource(rewritten.url), logKey: parseVerifierKey(vkey), state });

  it("given a smaller tree signed by the key, then the shrink is refused", async () => {
    await postLogged(rewritten, "rewrite-target", opened("rewrite-opened"));
    await postLogged(rewritten, "rewrite-target", casualties(figures(50), "A", "rewrite-event-1"));
    expect(await refusal(verifyWithState())).toMatch(
      /^the log shrank: checkpoint size 2, the state remembers 4/,
    );
  });

  it("given another tree of the same size, then the fork is refused", async () => {
    await postLogged(rewritten, "rewrite-target", {
      events: [
        casualties(figures(6), "B", "rewrite-event-2"),
        casualties(figures(70), "C", "rewrite-event-3"),
      ],
    });
    expect(await refusal(verifyWithState())).toMatch(
      /^fork: checkpoint root .* at size 4 differs from the remembered/,
    );
  });

  it("given the rewritten archive grown past the remembered size, then it is self-consistent but not an extension of what the reader saw", async () => {
    await postLogged(rewritten, "rewrite-target", casualties(figures(80), "D", "rewrite-event-4"));
    const alone = await verifyLog({ source: httpSource(rewritten.url), logKey: parseVerifierKey(vkey) });
    expect(alone.checkpoint.size).toBe(5);
    expect(await refusal(verifyWithState())).toMatch(
      /^the log was rewritten: no valid consistency proof from the remembered size 4 to 5/,
    );
  });

  it("given a checkpoint of the remembered size with another root, then without a state the leaves betray it", async () => {
    const db = createDynamoClient(rewritten.dynamoEndpoint);
    const key = { pk: { S: "checkpoint" }, sk: { N: "5" } };
    const original =
      (await db.send(new GetItemCommand({ TableName: rewritten.tables.log, Key: key }))).Item ?? {};
    const signer = keySigner(ORIGIN, privateKey);
    const forged = await signNote(
      formatCheckpoint({ origin: ORIGIN, size: 5, root: hashLeaf(new Uint8Array([1])) }),
      [signer],
    );
    await db.send(
      new PutItemCommand({ TableName: rewritten.tables.log, Item: { ...original, text: { S: forged } } }),
    );
    try {
      expect(
        await refusal(verifyLog({ source: httpSource(rewritten.url), logKey: parseVerifierKey(vkey) })),
      ).toMatch(/^the 5 leaves recompute root .*, not the checkpoint's/);
    } finally {
      await db.send(new PutItemCommand({ TableName: rewritten.tables.log, Item: original }));
      db.destroy();
    }
  });
});

describe("witness cosignatures against a policy", () => {
  let witnesses: TestWitness[];
  let archive: LocalServer;
  let vkey: string;
  beforeAll(async () => {
    const logVkey = keySigner(ORIGIN, privateKey).vkey;
    witnesses = await Promise.all(
      ["witness.test/w1", "witness.test/w2"].map((name) => startTestWitness({ logs: [logVkey], name })),
    );
    archive = await startWithKey(witnesses);
    vkey = await vkeyOf(archive);
    await postLogged(archive, "witnessed", opened());
    // Cosignatures are gathered after signing: wait until both are on the published checkpoint.
    for (let i = 0; i < 100; i++) {
      const note = (await call(archive.url, "GET", "/log/checkpoint")).body as string;
      if (witnesses.every((w) => note.includes(`— ${w.name} `))) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  });
  afterAll(async () => {
    await archive.close();
    await Promise.all(witnesses.map((w) => w.close()));
  });

  it("given a policy of two witnesses that both cosigned, then the quorum holds; with a third required, it does not", async () => {
    const [w1, w2] = witnesses as [TestWitness, TestWitness];
    const both = parsePolicy(
      `log ${vkey}\nwitness A ${w1.vkey}\nwitness B ${w2.vkey}\ngroup AB all A B\nquorum AB\n`,
    );
    const ok = await verifyLog({
      source: httpSource(archive.url),
      logKey: parseVerifierKey(vkey),
      policy: both,
    });
    expect(ok.checkpoint.size).toBeGreaterThan(0);
    const absent = await startTestWitness({ logs: [vkey], name: "witness.test/absent" });
    await absent.close();
    const three = parsePolicy(
      `log ${vkey}\nwitness A ${w1.vkey}\nwitness B ${w2.vkey}\nwitness C ${absent.vkey}\ngroup ABC all A B C\nquorum ABC\n`,
    );
    expect(
      await refusal(
        verifyLog({ source: httpSource(archive.url), logKey: parseVerifierKey(vkey), policy: three }),
      ),
    ).toMatch(/^witness quorum ABC not met \(valid cosignatures from: A, B\)/);
  });
});
