import { generateKeyPairSync } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseVerifierKey, verifiedCosignatures, verifyNote } from "../../events/transparency/note.js";
import type { LocalServer } from "../../functions/local/server.js";
import { startLocalServer } from "../../functions/local/server.js";
import { createLogWriter } from "../../functions/log/log-service.js";
import { LogStore, type StoredCheckpoint } from "../../functions/log/log-store.js";
import { formatPrivateKey, keySigner } from "../../functions/log/signer.js";
import { parseWitnesses } from "../../functions/log/witness-client.js";
import { silentLogger } from "../../functions/logger.js";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import { casualties, post, startArchive, TOKEN } from "../support/archive.js";
import { startTestWitness, type TestWitness } from "../support/test-witness.js";
import { appendEvents, freshLogTable, ORIGIN } from "./log-kit.js";

const INCIDENTS = ["witness-alpha-2024", "witness-bravo-2024"];
let archive: LocalServer;
beforeAll(async () => {
  archive = await startArchive();
  await appendEvents(archive.url, INCIDENTS, 20);
});
afterAll(() => archive.close());

const signer = keySigner(ORIGIN, generateKeyPairSync("ed25519").privateKey);
const witnessesOf = (...ws: TestWitness[]) => parseWitnesses(ws.map((w) => `${w.vkey} ${w.url}`).join(";"));
const cosignedBy = (note: string, ...ws: TestWitness[]) => [
  ...verifiedCosignatures(
    note,
    ws.map((w) => parseVerifierKey(w.vkey)),
  ).keys(),
];

async function writer(table: string, witnesses: TestWitness[], witnessTimeoutMs?: number) {
  const db = createDynamoClient(archive.dynamoEndpoint);
  const store = new LogStore(db, table);
  return {
    store,
    db,
    ...createLogWriter({
      store,
      events: archive.ledger.events,
      signer,
      log: silentLogger,
      witnesses: witnessesOf(...witnesses),
      ...(witnessTimeoutMs ? { witnessTimeoutMs } : {}),
    }),
  };
}

describe("witnesses (c2sp.org/tlog-witness add-checkpoint)", () => {
  it("cosign each new checkpoint; after a restart a 409 gets the checkpoint resent from the witness's size", async () => {
    const w1 = await startTestWitness({ logs: [signer.vkey] });
    const table = await freshLogTable(archive);
    const first = await writer(table, [w1]);
    await first.pass();
    await first.witnessed();
    const one = { checkpoint: (await first.store.latestCheckpoint()) as StoredCheckpoint };
    expect(w1.statuses).toEqual([200]);
    expect(cosignedBy(one.checkpoint.text, w1)).toEqual([w1.name]);
    // The log's own signature still verifies with the cosignature lines added.
    expect(verifyNote(one.checkpoint.text, [signer.vkey]).verifiedBy).toEqual([ORIGIN]);

    // A new process knows nothing of what the witness holds: it says old 0, hears 409 and the size.
    await post(archive.url, INCIDENTS[0] as string, casualties({ killed: { value: 2, qualifier: "exact" } }));
    const restarted = await writer(table, [w1]);
    await restarted.pass();
    await restarted.witnessed();
    const two = { checkpoint: (await restarted.store.latestCheckpoint()) as StoredCheckpoint };
    expect(two.checkpoint.size).toBe(one.checkpoint.size + 1);
    expect(w1.statuses).toEqual([200, 409, 200]);
    expect(w1.sizeOf(ORIGIN)).toBe(two.checkpoint.size);
    expect(cosignedBy(two.checkpoint.text, w1)).toEqual([w1.name]);
    first.db.destroy();
    restarted.db.destroy();
    await w1.close();
  });

  it("publish without a witness that answers 422 (it holds another tree), keeping the others' cosignatures", async () => {
    const honest = await startTestWitness({ logs: [signer.vkey], name: "witness.test/honest" });
    const misled = await startTestWitness({ logs: [signer.vkey], name: "witness.test/misled" });
    // The misled witness first saw a different tree under the same key and origin (a fork).
    const fork = await writer(await freshLogTable(archive), [misled]);
    await fork.pass([INCIDENTS[1] as string]);
    await fork.witnessed();
    expect(misled.statuses).toEqual([200]);

    const log = await writer(await freshLogTable(archive), [honest, misled]);
    await log.pass();
    await log.witnessed();
    const result = { checkpoint: (await log.store.latestCheckpoint()) as StoredCheckpoint };
    expect(misled.statuses).toEqual([200, 409, 422]);
    expect(cosignedBy(result.checkpoint.text, honest, misled)).toEqual([honest.name]);
    fork.db.destroy();
    log.db.destroy();
    await honest.close();
    await misled.close();
  });

  it("keeps signing while a witness never answers; a slow witness's cosignatures join the checkpoints they sign, later", async () => {
    const silent = await startTestWitness({
      logs: [signer.vkey],
      name: "witness.test/silent",
      hold: () => new Promise<void>(() => undefined),
    });
    const opening: (() => void)[] = [];
    const gate = new Promise<void>((resolve) => opening.push(resolve));
    const release = () => {
      for (const open of opening) open();
    };
    const slow = await startTestWitness({ logs: [signer.vkey], name: "witness.test/slow", hold: () => gate });
    const log = await writer(await freshLogTable(archive), [silent, slow], 1_000);
    const first = await log.pass();
    // Signed and stored while both witnesses still hold their requests.
    expect(slow.statuses).toEqual([]);
    expect(cosignedBy(first.checkpoint.text, silent, slow)).toEqual([]);
    await post(archive.url, INCIDENTS[1] as string, casualties({ killed: { value: 3, qualifier: "exact" } }));
    const second = await log.pass();
    expect(second.checkpoint.size).toBe(first.checkpoint.size + 1);
    expect(slow.statuses).toEqual([]);

    release();
    await log.witnessed();
    // The first checkpoint was in flight; the second was waiting and is sent next, from the first.
    expect(slow.statuses).toEqual([200, 200]);
    expect(silent.statuses).toEqual([]);
    for (const size of [first.checkpoint.size, second.checkpoint.size]) {
      const stored = (await log.store.checkpointAt(size)) as StoredCheckpoint;
      // Each cosignature verifies against the body of the checkpoint it is stored on.
      expect(cosignedBy(stored.text, silent, slow)).toEqual([slow.name]);
      expect(verifyNote(stored.text, [signer.vkey]).verifiedBy).toEqual([ORIGIN]);
    }
    log.db.destroy();
    await silent.close();
    await slow.close();
  });

  it("shows the cosignatures on GET /log/checkpoint of a server given LEDGER_WITNESSES", async () => {
    const { privateKey } = generateKeyPairSync("ed25519");
    const keyText = formatPrivateKey("witnessed.example/log", privateKey);
    const w = await startTestWitness({ logs: [keySigner("witnessed.example/log", privateKey).vkey] });
    const server = await startLocalServer({
      port: 0,
      dynamoPort: 0,
      token: TOKEN,
      log: silentLogger,
      logOrigin: "witnessed.example/log",
      logKey: keyText,
      witnesses: witnessesOf(w),
    });
    try {
      await appendEvents(server.url, ["witnessed-incident"], 3);
      await server.sequencing.idle();
      await server.logWriter.witnessed();
      const note = await (await fetch(`${server.url}/log/checkpoint`)).text();
      expect(cosignedBy(note, w)).toEqual([w.name]);
      expect(note).toContain("\n3\n");
    } finally {
      await server.close();
      await w.close();
    }
  });
});
