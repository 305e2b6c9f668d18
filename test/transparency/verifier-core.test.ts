import { generateKeyPairSync, sign } from "node:crypto";
import { describe, expect, it } from "vitest";
import { EMPTY_HEAD, hashEvent, type StoredEvent, sealEvents } from "../../events/stored-event.js";
import { opened, statement } from "../../events/test-kit.js";
import { ed25519RawPublicKey } from "../../events/transparency/ed25519.js";
import { leafText } from "../../events/transparency/leaf.js";
import { hashLeaf, rootOf } from "../../events/transparency/merkle.js";
import {
  COSIGNATURE_V1,
  cosignatureMessage,
  cosignaturePayload,
  keyId,
  parseNote,
  signatureLine,
  verifierKey,
} from "../../events/transparency/note.js";
import { parsePolicy } from "../../events/transparency/policy.js";
import { formatProofFile } from "../../events/transparency/proof-file.js";
import { VerificationError } from "../../scripts/verify/checks.js";
import { verifyLog } from "../../scripts/verify/verify-log.js";
import { verifyEventProof } from "../../scripts/verify/verify-proof.js";
import { MemoryArchive, testLogKey } from "./memory-log.js";

/** Incidents' events interleaved in log order, as a busy archive stores them. */
function events(incidents: number, perIncident: number): StoredEvent[] {
  const chains = Array.from({ length: incidents }, (_, i) => {
    const incidentId = `incident-${i}`;
    const envelopes = [opened(`${incidentId}-opened`)];
    for (let v = 2; v <= perIncident; v++) envelopes.push(statement(`${incidentId}-s${v}`, `speaker ${v}`));
    return sealEvents(EMPTY_HEAD, envelopes, {
      incidentId,
      recordedBy: "test-writer",
      now: "2026-11-30T12:00:00.000Z",
      newEventId: (v) => `${incidentId}-${v}`,
    });
  });
  const out: StoredEvent[] = [];
  for (let v = 0; v < perIncident; v++) for (const c of chains) out.push(c[v] as StoredEvent);
  return out;
}

async function archiveOf(all: StoredEvent[]) {
  const log = testLogKey();
  const archive = new MemoryArchive(log.signer);
  archive.append(all);
  await archive.sign();
  return { log, archive };
}

async function failure(run: Promise<unknown>): Promise<string> {
  try {
    await run;
  } catch (e) {
    if (e instanceof VerificationError) return e.message;
    throw e;
  }
  throw new Error("verification passed");
}

describe("the verifier's log checks, over an archive in memory", () => {
  it("given an honest archive of 600 events (3 entry bundles), then everything holds and the state remembers it", async () => {
    const { log, archive } = await archiveOf(events(20, 30));
    const lines: string[] = [];
    const result = await verifyLog({ source: archive, logKey: log.key, progress: (l) => lines.push(l) });
    expect(result.checkpoint.size).toBe(600);
    expect(result.incidents).toBe(20);
    expect(result.events).toBe(600);
    expect(result.state.size).toBe(600);
    expect(result.state.root).toBe(Buffer.from(rootOf(archive.hashes())).toString("base64"));
    expect(lines.some((l) => l.includes("recompute the checkpoint's root"))).toBe(true);
    // The next run, the log having grown, holds too.
    archive.append(events(21, 30).filter((e) => e.incidentId === "incident-20"));
    await archive.sign();
    const next = await verifyLog({ source: archive, logKey: log.key, state: result.state });
    expect(next.checkpoint.size).toBe(630);
  });

  it("given an event edited in the table, then it names the incident and version", async () => {
    const { log, archive } = await archiveOf(events(3, 4));
    const served = archive.served.get("incident-1") as StoredEvent[];
    (served[2] as StoredEvent).data = { quote: "something else", stance: "condemns" };
    expect(await failure(verifyLog({ source: archive, logKey: log.key }))).toMatch(
      /^incident incident-1 version 3: the event's content does not hash/,
    );
  });

  it("given an incident rewritten with its chain recomputed, then the leaves betray it, naming incident and version", async () => {
    const { log, archive } = await archiveOf(events(3, 4));
    const served = archive.served.get("incident-2") as StoredEvent[];
    const rewritten = sealEvents(
      { version: 1, hash: (served[0] as StoredEvent).hash, recordedAt: null },
      [
        statement("incident-2-s2", "someone else"),
        statement("incident-2-s3", "x"),
        statement("incident-2-s4", "y"),
      ],
      {
        incidentId: "incident-2",
        recordedBy: "test-writer",
        now: "2026-11-30T12:00:00.000Z",
        newEventId: String,
      },
    );
    archive.served.set("incident-2", [served[0] as StoredEvent, ...rewritten]);
    expect(await failure(verifyLog({ source: archive, logKey: log.key }))).toMatch(
      /^incident incident-2 version 2: the event served .* is not the one log leaf 5 holds/,
    );
  });

  it("given a log whose leaf names another eventId than the event served (same hash), then the verifier names that leaf", async () => {
    const all = events(3, 4);
    const log = testLogKey();
    const archive = new MemoryArchive(log.signer);
    archive.append(all);
    // Leaf 4 (incident-1 version 2) claims an eventId the served event does not have; the root is signed over it.
    const leaf = all[4] as StoredEvent;
    archive.leaves[4] = leafText({ ...leaf, eventId: "someone-elses-id" });
    await archive.sign();
    expect(await failure(verifyLog({ source: archive, logKey: log.key }))).toMatch(
      /^incident incident-1 version 2: the event served .* is not the one log leaf 4 holds/,
    );
  });

  it("given the incident and its leaves rewritten and the checkpoint re-signed, then only a remembered checkpoint catches it", async () => {
    const { log, archive } = await archiveOf(events(3, 4));
    const earlier = await verifyLog({ source: archive, logKey: log.key });
    // Rewrite incident-0 version 2 (leaf 3) consistently: table, chain, leaf, signed root.
    const served = archive.served.get("incident-0") as StoredEvent[];
    const rewritten = sealEvents(
      { version: 1, hash: (served[0] as StoredEvent).hash, recordedAt: null },
      [
        statement("incident-0-s2", "rewritten"),
        statement("incident-0-s3", "x"),
        statement("incident-0-s4", "y"),
      ],
      {
        incidentId: "incident-0",
        recordedBy: "test-writer",
        now: "2026-11-30T12:00:00.000Z",
        newEventId: String,
      },
    );
    archive.served.set("incident-0", [served[0] as StoredEvent, ...rewritten]);
    rewritten.forEach((e, i) => {
      archive.leaves[3 + 3 * i] = leafText(e);
    });
    archive.append(events(4, 1).slice(3));
    await archive.sign();
    // Alone, the rewritten archive is self-consistent.
    await expect(verifyLog({ source: archive, logKey: log.key })).resolves.toBeTruthy();
    expect(await failure(verifyLog({ source: archive, logKey: log.key, state: earlier.state }))).toMatch(
      /^the log was rewritten: no valid consistency proof from the remembered size 12 to 13/,
    );
  });

  it("refuses forged checkpoints: another key, a shrunk tree, another root at the same size", async () => {
    const { log, archive } = await archiveOf(events(2, 5));
    const earlier = await verifyLog({ source: archive, logKey: log.key });
    await archive.sign({ signer: testLogKey().signer });
    expect(await failure(verifyLog({ source: archive, logKey: log.key }))).toMatch(
      /^checkpoint signature: no trusted key/,
    );
    await archive.sign({ size: 8 });
    expect(await failure(verifyLog({ source: archive, logKey: log.key, state: earlier.state }))).toMatch(
      /^the log shrank: checkpoint size 8, the state remembers 10/,
    );
    await archive.sign({ size: 10, root: hashLeaf(new Uint8Array([1])) });
    expect(await failure(verifyLog({ source: archive, logKey: log.key, state: earlier.state }))).toMatch(
      /^fork: checkpoint root .* at size 10 differs from the remembered/,
    );
    // Without a state, a root that the leaves do not recompute is refused too.
    expect(await failure(verifyLog({ source: archive, logKey: log.key }))).toMatch(
      /^the 10 leaves recompute root/,
    );
  });

  it("refuses a leaf out of its incident's order and a logged event the table no longer serves", async () => {
    const all = events(2, 3);
    const { log, archive } = await archiveOf([
      all[0],
      all[3],
      all[1],
      all[2],
      ...all.slice(4),
    ] as StoredEvent[]);
    expect(await failure(verifyLog({ source: archive, logKey: log.key }))).toMatch(
      /^leaf 1: incident incident-1 version 2 comes after version 0/,
    );
    const second = await archiveOf(all);
    (second.archive.served.get("incident-1") as StoredEvent[]).pop();
    expect(await failure(verifyLog({ source: second.archive, logKey: second.log.key }))).toMatch(
      /^incident incident-1 version 3: in the log \(leaf 5\) but not served/,
    );
  });

  it("given a feed that serves an event at another log index than its leaf's, then it names both", async () => {
    const { log, archive } = await archiveOf(events(2, 3));
    const honest = archive.feed.bind(archive);
    archive.feed = async (after, limit) => {
      const page = await honest(after, limit);
      return { ...page, items: page.items.map((item) => (item.index === 4 ? { ...item, index: 5 } : item)) };
    };
    expect(await failure(verifyLog({ source: archive, logKey: log.key }))).toMatch(
      /^incident incident-0 version 3: served at log index 5, but its leaf is 4/,
    );
  });

  it("given a feed whose pages come back shorter than asked, then the pages asked for ahead are asked again and every event is checked once", async () => {
    const { log, archive } = await archiveOf(events(20, 30));
    const honest = archive.feed.bind(archive);
    const asked: number[] = [];
    archive.feed = async (after, limit) => {
      asked.push(after);
      return honest(after, Math.min(limit, 7));
    };
    const result = await verifyLog({ source: archive, logKey: log.key });
    expect(result.events).toBe(600);
    // Each page checked starts where the one before it ended (7 events on): 86 of them.
    const checked = Array.from({ length: Math.ceil(600 / 7) }, (_, k) => 7 * k - 1);
    expect(asked.filter((after) => (after + 1) % 7 === 0)).toEqual(expect.arrayContaining(checked));
  });

  /** The archive with its feed serving the events of log indexes `a` and `b` in each other's places. */
  function swapped(archive: MemoryArchive, a: number, b: number) {
    const honest = archive.feed.bind(archive);
    archive.feed = async (after, limit) => {
      const page = await honest(after, limit);
      const [first, second] = [a, b].map((i) => page.items.find((item) => item.index === i));
      if (!first || !second) return page;
      return {
        ...page,
        items: page.items.map((item) =>
          item.index === a
            ? { ...item, event: second.event }
            : item.index === b
              ? { ...item, event: first.event }
              : item,
        ),
      };
    };
  }

  /**
   * Holds entry bundle `index` back until the feed has been asked for (at most 2 s), then `ms`
   * more; `feedFirst` says whether the feed was asked for before that bundle answered.
   */
  function holdBundle(archive: MemoryArchive, index: number, ms: number) {
    const bundle = archive.entries.bind(archive);
    const feed = archive.feed.bind(archive);
    let feedAsked = false;
    let feedFirst = false;
    archive.feed = async (after, limit) => {
      feedAsked = true;
      return feed(after, limit);
    };
    archive.entries = async (ref) => {
      if (ref.index === index) {
        for (let waited = 0; !feedAsked && waited < 2000; waited += 5)
          await new Promise((resolve) => setTimeout(resolve, 5));
        feedFirst = feedAsked;
        await new Promise((resolve) => setTimeout(resolve, ms));
      }
      return bundle(ref);
    };
    return { feedFirst: () => feedFirst };
  }

  it("given a feed that serves two events in each other's places, then it names the first one served and its leaf", async () => {
    const { log, archive } = await archiveOf(events(3, 4));
    // Index 5 is incident-2 version 2 (its chain goes on from version 1 at index 2), served at 3.
    swapped(archive, 3, 5);
    expect(await failure(verifyLog({ source: archive, logKey: log.key }))).toMatch(
      /^incident incident-2 version 2: served at log index 3, but its leaf is 5/,
    );
  });

  it("given such a swap across entry bundles, when the later bundle is not read yet, then it names the event served before its leaf", async () => {
    // Index 256 (the second bundle's first leaf) is incident-0 version 129; index 255 is
    // incident-1 version 128, and incident-0's version 128 was served at 254.
    const { log, archive } = await archiveOf(events(2, 200));
    swapped(archive, 255, 256);
    // The second bundle comes once the feed's first page has been checked as far as it can be.
    holdBundle(archive, 1, 50);
    expect(await failure(verifyLog({ source: archive, logKey: log.key }))).toMatch(
      /^incident incident-0 version 129: served at log index 255, but leaf 255 holds another event and none before it holds this one/,
    );
  });

  it("given a feed that ends early while the last entry bundle is still on its way, then it names a logged event not served", async () => {
    const { log, archive } = await archiveOf(events(16, 32));
    const honest = archive.feed.bind(archive);
    archive.feed = async (after, limit) => {
      const page = await honest(after, limit);
      return { items: page.items.filter((item) => item.index < 256), next: null };
    };
    holdBundle(archive, 1, 100);
    expect(await failure(verifyLog({ source: archive, logKey: log.key }))).toMatch(
      /^incident incident-\d+ version \d+: in the log \(leaf \d+\) but not served/,
    );
  });

  it("reads the feed while the entry bundles are still being read, and reports leaves that do not recompute the root before an edited event", async () => {
    const { log, archive } = await archiveOf(events(20, 30));
    // The last of the 3 bundles answers once the feed has been asked for (or after 2 s).
    const held = holdBundle(archive, 2, 0);
    await verifyLog({ source: archive, logKey: log.key });
    expect(held.feedFirst()).toBe(true);

    // An edited event and a checkpoint signed over another root: the root is what is reported.
    const served = archive.served.get("incident-0") as StoredEvent[];
    (served[1] as StoredEvent).data = { quote: "edited", stance: "condemns" };
    await archive.sign({ size: 600, root: hashLeaf(new Uint8Array([1])) });
    expect(await failure(verifyLog({ source: archive, logKey: log.key }))).toMatch(
      /^the 600 leaves recompute root .*, not the checkpoint's/,
    );
  });

  it("checks witness cosignatures against a policy's quorum", async () => {
    const { log, archive } = await archiveOf(events(2, 2));
    const witnesses = ["w1.example", "w2.example"].map((name) => {
      const { privateKey } = generateKeyPairSync("ed25519");
      const publicKey = ed25519RawPublicKey(privateKey);
      return { name, privateKey, publicKey, vkey: verifierKey(name, publicKey, COSIGNATURE_V1) };
    });
    const policy = parsePolicy(
      `log ${log.vkey}\nwitness A ${witnesses[0]?.vkey}\nwitness B ${witnesses[1]?.vkey}\ngroup both all A B\nquorum both\n`,
    );
    const body = parseNote(archive.note).text;
    const cosign = (w: (typeof witnesses)[number]) =>
      signatureLine(
        w.name,
        keyId(w.name, w.publicKey, COSIGNATURE_V1),
        cosignaturePayload(
          1_800_000_000,
          new Uint8Array(sign(null, cosignatureMessage(body, 1_800_000_000), w.privateKey)),
        ),
      );
    archive.extraSignatures = cosign(witnesses[0] as (typeof witnesses)[number]);
    expect(await failure(verifyLog({ source: archive, logKey: log.key, policy }))).toMatch(
      /^witness quorum both not met \(valid cosignatures from: A\)/,
    );
    archive.extraSignatures += cosign(witnesses[1] as (typeof witnesses)[number]);
    await expect(verifyLog({ source: archive, logKey: log.key, policy })).resolves.toBeTruthy();
  });
});

describe("the offline check of one event", () => {
  it("given a tlog-proof file, then the event verifies; edited, or at another index, it does not", async () => {
    const all = events(3, 3);
    const { log, archive } = await archiveOf(all);
    const event = all[4] as StoredEvent;
    const proofText = formatProofFile({
      index: 4,
      inclusion: await archive.inclusion(4),
      checkpoint: archive.note,
    });
    expect(verifyEventProof({ proofText, event, logKey: log.key }).checkpoint.size).toBe(9);
    const edited = { ...event, data: { quote: "other", stance: "condemns" } };
    expect(() => verifyEventProof({ proofText, event: edited, logKey: log.key })).toThrow(/does not hash/);
    const recomputed = { ...edited, hash: hashEvent(edited) };
    expect(() => verifyEventProof({ proofText, event: recomputed, logKey: log.key })).toThrow(
      /not included at index 4/,
    );
    const json = JSON.stringify({
      index: 4,
      inclusion: (await archive.inclusion(4)).map((h) => Buffer.from(h).toString("base64")),
      checkpoint: archive.note,
    });
    expect(verifyEventProof({ proofText: json, event, logKey: log.key }).index).toBe(4);
    expect(() => verifyEventProof({ proofText, event, logKey: testLogKey().key })).toThrow(
      /checkpoint signature/,
    );
  });
});

describe("catching up from the state (--incremental)", () => {
  async function grown() {
    const all = events(30, 30); // 900 events: 4 entry bundles, a level-1 tile
    const first = all.slice(0, 600);
    const { log, archive } = await archiveOf(first);
    const earlier = await verifyLog({ source: archive, logKey: log.key });
    archive.append(all.slice(600));
    await archive.sign();
    archive.bundleReads = 0;
    archive.feedReads = 0;
    return { log, archive, earlier, all };
  }

  it("given 300 new events, then it reads only the bundles holding them and the touched incidents, and agrees with a full check", async () => {
    const { log, archive, earlier } = await grown();
    const caughtUp = await verifyLog({
      source: archive,
      logKey: log.key,
      state: earlier.state,
      incremental: true,
    });
    expect(caughtUp.leaves).toBe(300);
    expect(caughtUp.events).toBe(300);
    expect(archive.bundleReads).toBe(2); // bundles 2 (600–767) and 3 (768–899), not 0 and 1
    expect(archive.feedReads, "one page of the feed: the 300 new events").toBe(1);
    const full = await verifyLog({ source: archive, logKey: log.key });
    expect(caughtUp.state.heads).toEqual(full.state.heads);
    expect(caughtUp.state.root).toBe(full.state.root);
  });

  it("given a new event whose prevHash does not link to the remembered head, then it names it", async () => {
    const { log, archive, earlier } = await grown();
    const served = archive.served.get("incident-3") as StoredEvent[];
    const v21 = served[20] as StoredEvent;
    const relinked = { ...v21, prevHash: "1".repeat(64) };
    served[20] = { ...relinked, hash: hashEvent(relinked) };
    expect(
      await failure(verifyLog({ source: archive, logKey: log.key, state: earlier.state, incremental: true })),
    ).toMatch(/^incident incident-3 version 21: prevHash does not link to version 20's hash/);
  });

  it("given hash tiles that do not fold to the remembered root, then it refuses them", async () => {
    const { log, archive, earlier } = await grown();
    const lying = { ...earlier.state, root: Buffer.from(hashLeaf(new Uint8Array([3]))).toString("base64") };
    // A remembered root that is not its own signed checkpoint's: the state file is said to be
    // edited, not the log to be rewritten; so are a remembered size and a checkpoint not signed.
    expect(
      await failure(verifyLog({ source: archive, logKey: log.key, state: lying, incremental: true })),
    ).toMatch(
      /^the state file remembers size 600 and root .* but its signed checkpoint says size 600 .*: the state file was edited/,
    );
    const larger = { ...earlier.state, size: 650 };
    expect(await failure(verifyLog({ source: archive, logKey: log.key, state: larger }))).toMatch(
      /^the state file remembers size 650 .* the state file was edited/,
    );
    const unsigned = { ...earlier.state, checkpoint: "garbage" };
    expect(await failure(verifyLog({ source: archive, logKey: log.key, state: unsigned }))).toMatch(
      /^the state file's checkpoint does not verify with the log's key/,
    );
    archive.tile = async (ref) => new Uint8Array(32 * ref.width);
    expect(
      await failure(verifyLog({ source: archive, logKey: log.key, state: earlier.state, incremental: true })),
    ).toMatch(/^the hash tiles do not give the remembered root at size 600/);
  });
});

describe("tiles a log no longer serves partially, and runs with nothing new", () => {
  it("given partial bundles and tiles refused, then the full ones are read instead", async () => {
    const all = events(30, 30);
    const { log, archive } = await archiveOf(all.slice(0, 600));
    const earlier = await verifyLog({ source: archive, logKey: log.key });
    archive.append(all.slice(600));
    await archive.sign({ size: 700 });
    const entries = archive.entries.bind(archive);
    const tile = archive.tile.bind(archive);
    // As if the log had already filled bundle 2 (512–767) and dropped its partials.
    archive.entries = async (ref) => {
      if (ref.width < 256 && ref.index === 2) throw new Error("404");
      return entries(ref);
    };
    archive.tile = async (ref) => {
      if (ref.width < 256 && ref.level === 0) throw new Error("404");
      return tile(ref);
    };
    const full = await verifyLog({ source: archive, logKey: log.key });
    expect(full.checkpoint.size).toBe(700);
    const caughtUp = await verifyLog({
      source: archive,
      logKey: log.key,
      state: earlier.state,
      incremental: true,
    });
    expect(caughtUp.leaves).toBe(100);
  });

  it("given a state at the checkpoint's size, then an incremental run reads no leaves and keeps the heads", async () => {
    const { log, archive } = await archiveOf(events(3, 3));
    const first = await verifyLog({ source: archive, logKey: log.key });
    archive.bundleReads = 0;
    archive.tileReads = 0;
    const again = await verifyLog({
      source: archive,
      logKey: log.key,
      state: first.state,
      incremental: true,
    });
    expect([again.leaves, again.events, archive.bundleReads, archive.tileReads]).toEqual([0, 0, 0, 0]);
    expect(again.state.heads).toEqual(first.state.heads);
  });
});
