import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCheckpoint } from "../../events/transparency/checkpoint.js";
import { parseLeaf } from "../../events/transparency/leaf.js";
import { hashLeaf, treeRoot, verifyConsistency, verifyInclusion } from "../../events/transparency/merkle.js";
import { verifyNote } from "../../events/transparency/note.js";
import { parseProofFile } from "../../events/transparency/proof-file.js";
import {
  decodeEntryBundle,
  decodeHashTile,
  entriesPath,
  tileNodeReader,
  tilePath,
  tilesOfTree,
} from "../../events/transparency/tiles.js";
import type { LocalServer } from "../../functions/local/server.js";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import { EventStore } from "../../functions/store/event-store.js";
import { call, casualties, opened, post, startArchive } from "../support/archive.js";
import { appendEvents, checkLogAgainstEvents, eventsFromApi } from "./log-kit.js";

const INCIDENTS = ["routes-alpha-2024", "routes-bravo-2024", "routes-charlie-2024"];
const b64 = (s: string) => new Uint8Array(Buffer.from(s, "base64"));

let archive: LocalServer;
let base: string;
beforeAll(async () => {
  archive = await startArchive();
  base = archive.url;
  await appendEvents(base, INCIDENTS, 100);
  await archive.sequencing.idle();
});
afterAll(() => archive.close());

async function text(path: string) {
  const response = await fetch(`${base}${path}`);
  return { status: response.status, headers: response.headers, body: await response.text() };
}
async function bytes(path: string) {
  const response = await fetch(`${base}${path}`);
  return {
    status: response.status,
    headers: response.headers,
    body: new Uint8Array(await response.arrayBuffer()),
  };
}
async function checkpoint() {
  const vkey = (await text("/log/vkey")).body.trim();
  const note = (await text("/log/checkpoint")).body;
  return { vkey, note, ...parseCheckpoint(verifyNote(note, [vkey]).text) };
}

describe("the log's routes", () => {
  it("serve a signed checkpoint whose tree, read through the tiles, is the events' own", async () => {
    const cp = await checkpoint();
    expect(cp.origin).toBe("localhost/incident-ledger");
    const events = await eventsFromApi(base, INCIDENTS);
    expect(cp.size).toBe(events.length);
    // Read the tree as an outside client would: tiles at the checkpoint's size.
    const node = tileNodeReader(cp.size, async (tile) => {
      const answer = await bytes(`/log/${tilePath(tile)}`);
      expect(answer.status, tilePath(tile)).toBe(200);
      return decodeHashTile(answer.body, tile.width);
    });
    expect(Buffer.from(await treeRoot(cp.size, node)).equals(Buffer.from(cp.root))).toBe(true);
    // The entry bundles hold the leaves; the test recomputes the root from the events themselves.
    const leaves = [];
    for (const tile of tilesOfTree(cp.size).filter((t) => t.level === 0)) {
      const answer = await bytes(`/log/${entriesPath(tile)}`);
      expect(answer.status).toBe(200);
      leaves.push(...decodeEntryBundle(answer.body).map((leaf) => parseLeaf(leaf)));
    }
    const { problems, root } = checkLogAgainstEvents(
      leaves.map((leaf, index) => ({ ...leaf, index, commit: 0 })),
      events,
    );
    expect(problems).toEqual([]);
    expect(Buffer.from(root).equals(Buffer.from(cp.root))).toBe(true);
  });

  it("mark full tiles immutable and answer partial ones up to the tree's width", async () => {
    const cp = await checkpoint();
    const full = await bytes("/log/tile/0/000");
    expect(full.status).toBe(200);
    expect(full.body.length).toBe(256 * 32);
    expect(full.headers.get("cache-control")).toContain("immutable");
    const width = cp.size % 256;
    const partial = await bytes(`/log/tile/0/001.p/${width}`);
    expect(partial.status).toBe(200);
    expect(partial.body.length).toBe(width * 32);
    expect(partial.headers.get("cache-control")).not.toContain("immutable");
    const bundle = await bytes("/log/tile/entries/000");
    expect(decodeEntryBundle(bundle.body).length).toBe(256);
  });

  it("prove an event's inclusion in the signed checkpoint, as JSON and as a tlog-proof file", async () => {
    const events = await eventsFromApi(base, [INCIDENTS[1] as string]);
    const event = events[41] as (typeof events)[number];
    const answer = await call(base, "GET", `/incidents/${event.incidentId}/events/${event.eventId}/proof`);
    expect(answer.status).toBe(200);
    const { vkey } = await checkpoint();
    const body = parseCheckpoint(verifyNote(answer.body.checkpoint, [vkey]).text);
    expect(answer.body.treeSize).toBe(body.size);
    expect(parseLeaf(new TextEncoder().encode(answer.body.leaf))).toEqual({
      incidentId: event.incidentId,
      version: event.version,
      eventId: event.eventId,
      hash: event.hash,
    });
    const leafHash = hashLeaf(new TextEncoder().encode(answer.body.leaf));
    const inclusion = (answer.body.inclusion as string[]).map(b64);
    expect(verifyInclusion(leafHash, answer.body.index, body.size, inclusion, body.root)).toBe(true);

    const file = await text(`/log/proof/${answer.body.index}`);
    expect(file.status).toBe(200);
    const proof = parseProofFile(file.body);
    expect(proof.index).toBe(answer.body.index);
    const fileBody = parseCheckpoint(verifyNote(proof.checkpoint, [vkey]).text);
    expect(verifyInclusion(leafHash, proof.index, fileBody.size, proof.inclusion, fileBody.root)).toBe(true);
  });

  it("prove that a later checkpoint extends an earlier one", async () => {
    const before = await checkpoint();
    await post(base, INCIDENTS[0] as string, casualties({ killed: { value: 3, qualifier: "exact" } }));
    await post(base, "routes-delta-2024", opened());
    await archive.sequencing.idle();
    const after = await checkpoint();
    expect(after.size).toBe(before.size + 2);
    const answer = await call(base, "GET", `/log/consistency?from=${before.size}&to=${after.size}`);
    expect(answer.status).toBe(200);
    const proof = (answer.body.proof as string[]).map(b64);
    expect(verifyConsistency(before.size, after.size, proof, before.root, after.root)).toBe(true);
    const defaulted = await call(base, "GET", `/log/consistency?from=${before.size}`);
    expect(defaulted.body).toEqual(answer.body);
  });

  it("answer 202 while a stored event is not in the log, and wait=true waits until it is", async () => {
    // A writer whose commits do not reach this server's sequencer (as if its feed was lost).
    const db = createDynamoClient(archive.dynamoEndpoint);
    const quiet = new EventStore({ db, tables: archive.tables });
    const stored = await quiet.append({
      incidentId: "routes-quiet-2024",
      envelopes: [opened("quiet-event-0001") as never],
      recordedBy: "test",
      batched: false,
    });
    const path = `/incidents/routes-quiet-2024/events/${stored.events[0]?.eventId}/proof`;
    const pending = await call(base, "GET", path);
    expect(pending.status).toBe(202);
    expect(pending.headers.get("retry-after")).toBe("1");
    const waiting = call(base, "GET", `${path}?wait=true`);
    archive.sequencing.notify("routes-quiet-2024");
    const answer = await waiting;
    expect(answer.status).toBe(200);
    expect(answer.body.leaf).toContain("quiet-event-0001");
    db.destroy();
  });

  it("answer bad requests with problem+json naming what is wrong, and change nothing", async () => {
    const before = (await text("/log/checkpoint")).body;
    const { size } = await checkpoint();
    const cases: [string, number, string][] = [
      [`/incidents/${INCIDENTS[0]}/events/no-such-event-1/proof`, 404, "no-such-event-1"],
      ["/incidents/no-such-incident/events/ev-whatever/proof", 404, "no-such-incident"],
      [`/log/consistency?from=${size}&to=${size - 1}`, 400, "query.from"],
      [`/log/consistency?from=1&to=${size + 1}`, 400, "query.to"],
      [`/log/consistency?from=${size + 5}`, 400, "query.from"],
      ["/log/consistency?from=-1", 400, "query.from"],
      ["/log/consistency", 400, "query.from"],
      ["/log/consistency?from=1&form=2", 400, "query.form"],
      ["/log/tile/0/x001/000", 404, "beyond the tree"],
      ["/log/tile/1/000", 404, "beyond the tree"],
      [`/log/tile/0/001.p/${(size % 256) + 1}`, 404, "beyond the tree"],
      ["/log/tile/entries/005", 404, "beyond the tree"],
      ["/log/tile/0/1", 400, "not a tile path"],
      ["/log/tile/0/000.p/256", 400, "not a tile path"],
      ["/log/tile/x/000", 400, "not a tile path"],
      ["/log/tile/0/000?compress=yes", 400, "query.compress"],
      [`/log/proof/${size}`, 404, "no leaf"],
      ["/log/proof/abc", 400, "path.index"],
      ["/log/checkpoint?x=1", 400, "query.x"],
      [`/incidents/${INCIDENTS[0]}/events/no-such-event-1/proof?wait=soon`, 400, "query.wait"],
    ];
    for (const [path, status, mention] of cases) {
      const answer = await text(path);
      expect(answer.status, path).toBe(status);
      expect(answer.headers.get("content-type"), path).toContain("application/problem+json");
      expect(answer.body, path).toContain(mention);
    }
    expect((await text("/log/checkpoint")).body).toBe(before);
  });
});
