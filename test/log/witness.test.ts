import { generateKeyPairSync } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseVerifierKey, verifiedCosignatures, verifyNote } from "../../events/transparency/note.js";
import type { LocalServer } from "../../functions/local/server.js";
import { startLocalServer } from "../../functions/local/server.js";
import { createLogWriter } from "../../functions/log/log-service.js";
import { LogStore } from "../../functions/log/log-store.js";
import { formatPrivateKey, keySigner } from "../../functions/log/signer.js";
import { parseWitnesses } from "../../functions/log/witness-client.js";
import { silentLogger } from "../../functions/log.js";
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

async function writer(table: string, witnesses: TestWitness[]) {
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
    }),
  };
}

describe("witnesses (c2sp.org/tlog-witness add-checkpoint)", () => {
  it("cosign each new checkpoint; after a restart a 409 gets the checkpoint resent from the witness's size", async () => {
    const w1 = await startTestWitness({ logs: [signer.vkey] });
    const table = await freshLogTable(archive);
    const first = await writer(table, [w1]);
    const one = await first.pass();
    expect(w1.statuses).toEqual([200]);
    expect(cosignedBy(one.checkpoint.text, w1)).toEqual([w1.name]);
    // The log's own signature still verifies with the cosignature lines added.
    expect(verifyNote(one.checkpoint.text, [signer.vkey]).verifiedBy).toEqual([ORIGIN]);
    expect((await first.store.latestCheckpoint())?.text).toBe(one.checkpoint.text);

    // A new process knows nothing of what the witness holds: it says old 0, hears 409 and the size.
    await post(archive.url, INCIDENTS[0] as string, casualties({ killed: { value: 2, qualifier: "exact" } }));
    const restarted = await writer(table, [w1]);
    const two = await restarted.pass();
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
    expect(misled.statuses).toEqual([200]);

    const log = await writer(await freshLogTable(archive), [honest, misled]);
    const result = await log.pass();
    expect(misled.statuses).toEqual([200, 409, 422]);
    expect(cosignedBy(result.checkpoint.text, honest, misled)).toEqual([honest.name]);
    fork.db.destroy();
    log.db.destroy();
    await honest.close();
    await misled.close();
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
      await server.logFeed.idle();
      const note = await (await fetch(`${server.url}/log/checkpoint`)).text();
      expect(cosignedBy(note, w)).toEqual([w.name]);
      expect(note).toContain("\n3\n");
    } finally {
      await server.close();
      await w.close();
    }
  });
});
