import { randomBytes } from "node:crypto";
import { checkAppend } from "../../events/append-rules.js";
import type { Envelope } from "../../events/schemas.js";
import {
  commitmentDigest,
  type Disclosure,
  decodeDisclosure,
  MIN_SALT_BYTES,
  sealables,
  sealEnvelope,
  valueAt,
  withCommitment,
} from "../../events/sealing.js";
import { canonicalJson, type StoredEvent } from "../../events/stored-event.js";
import type { FieldError } from "../../events/validate.js";
import { EventIdConflictError, PayloadTooLargeError, StoreBusyError, ValidationError } from "../errors.js";
import { breachError } from "../store/append-answers.js";
import type { AppendRequest, AppendResult, EventStore } from "../store/event-store.js";
import type { DisclosureStore, HeldDisclosure } from "./disclosure-store.js";

/**
 * What one commit item may hold of events (DynamoDB's item limit is 400 KB): a margin is left
 * for the item's other attributes and for what the server adds to each event.
 */
export const COMMIT_EVENTS_BUDGET = 390_000;
const SERVER_FIELDS_BYTES = 400;

/** The refusals that leave this append unstored for good (409, 422), as the store names them. */
const REFUSALS = [
  "EventIdConflictError",
  "VersionConflictError",
  "ValidationError",
  "IncidentExistsError",
  "IncidentMissingError",
];

/** What the disclosures table holds for one sealed envelope of this append: what it read there, and what it wrote. */
interface Written {
  /** Its index in the append. */
  at: number;
  eventId: string;
  /** Whether the eventId is the server's (posted without one): no other writer knows it. */
  ours: boolean;
  values: HeldDisclosure[];
}

/** Values held for one eventId, and its event as stored (null: none is, nor ever will be). */
interface Uncommitted {
  values: readonly HeldDisclosure[];
  /** An envelope as committed, or the stored event. */
  event: Envelope | StoredEvent | null;
}

/** One envelope sealed: as stored, the disclosures to write, and the items of an earlier attempt it relies on. */
interface Sealing {
  sealed: Envelope;
  fresh: Disclosure[];
  reused: ReadonlySet<string>;
}

export interface SealedAppendOptions {
  events: EventStore;
  disclosures: DisclosureStore;
  /** Salt for one sealed value: base64url of at least 16 random bytes (tests may fix it). */
  salt?: () => string;
  /** An id for a sealed event posted without one (its disclosures are keyed by it). */
  newEventId?: () => string;
  /** The writer's clock (ISO), as the event store's: the deadline to commit counts on it. */
  now?: () => string;
  /**
   * The incident's retracted event ids, as of now (the fold caught up with the store), so that a
   * `VictimsLinked` names live entries only. Without it that is not checked here (the fold still
   * leaves such a link out).
   */
  retracted?: (incidentId: string) => Promise<ReadonlySet<string>>;
}

// Salts are drawn from a pool of random bytes, each byte used once: one call to the CSPRNG for
// hundreds of values instead of one a value.
let pool = Buffer.alloc(0);
let drawn = 0;
const randomSalt = () => {
  if (drawn + MIN_SALT_BYTES > pool.length) {
    pool = randomBytes(MIN_SALT_BYTES * 512);
    drawn = 0;
  }
  drawn += MIN_SALT_BYTES;
  return pool.subarray(drawn - MIN_SALT_BYTES, drawn).toString("base64url");
};
/** The answer to a repeat of another writer's event with sealed values, whatever it holds. */
function anotherWriter(eventId: string, path: string): EventIdConflictError {
  const message = `${eventId} is already stored, recorded by another writer: a repeat of an event with sealed values is compared only for the writer who recorded it`;
  return new EventIdConflictError(message, [{ path, message }]);
}

const randomEventId = () => `sealed-${randomBytes(16).toString("base64url")}`;
const nowIso = () => new Date().toISOString();

/**
 * The append path for events that carry personal values (CONTRACT.md "People"), around the
 * event store: each sealed value is replaced by its commitment before the store seals and hashes
 * the event, and its disclosure is written to the disclosures table **first**. A crash between
 * the two leaves disclosures no event commits to: never served (readers match every item against
 * its event's commitment), reused by a retry of the same eventId, and otherwise removed by the
 * orphan sweep once no writer can still commit them (orphan-sweep.ts). The reverse order could
 * acknowledge an event whose values are lost; this one cannot. A refusal (409, 422) takes back
 * at once what it can know no event will commit to (`discardRefused`), and the append that stores
 * an eventId what earlier attempts at it left with other values (`discardUncommitted`).
 *
 * The deadline: the writer notes its clock before it writes disclosures (or, reusing an earlier
 * attempt's, moves their `writtenAt` forward to it), and the store commits only within
 * WRITER_DEADLINE_MS of that (`deadlineFrom`), so the sweep knows when an orphan is for good.
 *
 * Idempotency: the store recognises a repeat by the content it stores, here the sealed envelope.
 * So a retry must seal with the first attempt's salts: each value equal to a disclosure already
 * held for that eventId and pointer reuses its salt; a value erased since takes the stored
 * commitment as it is (it cannot be compared any more, and is never written again); and when two
 * attempts raced with different salts and the other one was stored, the values are opened
 * against the stored commitments and the append is replayed with them.
 *
 * `RedactionApplied` takes effect on the disclosures before it is appended: a crash in between
 * leaves a value withheld or erased (the safe side) whose event a retry then stores.
 */
export class SealedAppend {
  private readonly salt: () => string;
  private readonly newEventId: () => string;
  private readonly now: () => string;

  constructor(private readonly o: SealedAppendOptions) {
    this.salt = o.salt ?? randomSalt;
    this.newEventId = o.newEventId ?? randomEventId;
    this.now = o.now ?? nowIso;
  }

  async append(request: AppendRequest): Promise<AppendResult> {
    const { incidentId, batched } = request;
    const at = (i: number, field: string) => (batched ? `events[${i}].${field}` : field);
    await this.checkReferences(request, at);
    const redactions = await this.redactions(request, at);

    const toSeal = request.envelopes.map((envelope) =>
      sealables(envelope).length === 0
        ? null
        : { ...envelope, eventId: envelope.eventId ?? this.newEventId() },
    );
    // What earlier attempts left, and whether the incident exists: read at once, before any write.
    // The read comes first even for a first attempt: a retry must find what an earlier one left
    // (the first layout's items too, and tombstones: an erased value is never written again).
    const [held] = await Promise.all([
      Promise.all(
        toSeal.map((one, i) =>
          one && request.envelopes[i]?.eventId ? this.o.disclosures.ofEvent(incidentId, one.eventId) : [],
        ),
      ),
      toSeal.some(Boolean) ? this.checkHead(request) : undefined,
    ]);
    const sealed: Envelope[] = [];
    const writes: { at: number; envelope: Envelope & { eventId: string }; sealing: Sealing }[] = [];
    for (const [i, envelope] of request.envelopes.entries()) {
      const one = toSeal[i];
      if (!one) {
        sealed.push(envelope);
        continue;
      }
      const sealing = await this.seal(incidentId, one, held[i] ?? []);
      if ((held[i] ?? []).length > 0) await this.checkRepeat(request, one, sealing, at(i, "eventId"));
      writes.push({ at: sealed.length, envelope: one, sealing });
      sealed.push(sealing.sealed);
    }
    checkCommitSize(sealed);
    for (const r of redactions) await r();
    // Noted before any disclosure is written or relied on: the store commits within the deadline of it.
    const writtenAt = this.now();
    const written = await Promise.all(
      writes.map(async ({ at, envelope, sealing }): Promise<Written> => {
        let used = sealing;
        let known = held[at] ?? [];
        if (!(await this.refreshAll(incidentId, used.reused, writtenAt))) {
          // A sweep took what an earlier attempt left (it was past its deadline): seal afresh.
          known = await this.o.disclosures.ofEvent(incidentId, envelope.eventId);
          used = await this.seal(incidentId, envelope, known);
          if (!(await this.refreshAll(incidentId, used.reused, writtenAt)))
            throw new StoreBusyError(
              `the disclosures of ${envelope.eventId} changed while this append was written; nothing was stored`,
            );
          sealed[at] = used.sealed;
        }
        const fresh = await this.o.disclosures.putFresh(incidentId, envelope.eventId, used.fresh, writtenAt);
        return {
          at,
          eventId: envelope.eventId,
          ours: request.envelopes[at]?.eventId === undefined,
          values: [...known, ...fresh],
        };
      }),
    );
    const deadlineFrom = writes.length > 0 ? { deadlineFrom: Date.parse(writtenAt) } : {};
    let outcome: { result: AppendResult; stored: readonly Envelope[] };
    try {
      outcome = await this.commit(request, { ...request, envelopes: sealed, ...deadlineFrom });
    } catch (error) {
      if (REFUSALS.includes((error as Error).name)) await this.discardRefused(incidentId, written);
      throw error;
    }
    // A repeat raced with the first attempt (stored after checkRepeat looked) is still only the
    // recording writer's to make.
    if (!outcome.result.created)
      for (const w of written) {
        const stored = w.ours ? null : await this.o.events.findEvent(incidentId, w.eventId);
        if (stored && stored.recordedBy !== request.recordedBy)
          throw anotherWriter(w.eventId, at(w.at, "eventId"));
      }
    await this.discardUncommitted(
      written.map((w) => ({ values: w.values, event: outcome.stored[w.at] as Envelope })),
    );
    return outcome.result;
  }

  /**
   * A repeat of a stored event with sealed values is answered as one (200) only when it is by the
   * writer who recorded it and every value opens a disclosure held for it. Refused here, before
   * anything is written: a repeat by anyone else, whatever it holds, so that no writer can learn
   * a value they may not read by trying values against the answer; and one with a value the
   * event does not hold, which would otherwise leave its disclosures behind at every try.
   */
  private async checkRepeat(
    request: AppendRequest,
    envelope: Envelope & { eventId: string },
    sealing: Sealing,
    path: string,
  ): Promise<void> {
    const stored = await this.o.events.findEvent(request.incidentId, envelope.eventId);
    if (!stored) return;
    if (stored.recordedBy !== request.recordedBy) throw anotherWriter(envelope.eventId, path);
    if (sealing.fresh.length > 0) {
      const message = `${envelope.eventId} is already stored (version ${stored.version}) with different content`;
      throw new EventIdConflictError(message, [{ path, message }]);
    }
  }

  /**
   * The sealed append (`commit`) of what was posted (`posted`), and after an eventId or version
   * conflict its replay with the stored commitments when the stored event is this very one (`reseal`).
   * `stored`: the envelopes as stored.
   */
  private async commit(
    posted: AppendRequest,
    commit: AppendRequest,
  ): Promise<{ result: AppendResult; stored: readonly Envelope[] }> {
    try {
      return { result: await this.o.events.append(commit), stored: commit.envelopes };
    } catch (error) {
      // A retry racing its first attempt meets the eventId taken, or, under If-Match, the version
      // moved by that attempt: either way, if what is stored is what was posted, it is answered so.
      const name = (error as Error).name;
      if (name !== "EventIdConflictError" && name !== "VersionConflictError") throw error;
      const again = await this.reseal(
        commit.incidentId,
        posted.recordedBy,
        posted.envelopes,
        commit.envelopes,
      );
      if (!again) throw error;
      return { result: await this.o.events.append({ ...commit, envelopes: again }), stored: again };
    }
  }

  /**
   * A refused append's values (CONTRACT.md "People": no value may outlive what can remove it).
   * Where its eventId is stored, by another attempt, that event is final: every value it does
   * not commit to is no one's, now and for good (the orphan sweep keeps all of a stored event's,
   * and a redaction names only what it commits to), so they go at once. Where the eventId is the
   * server's own (posted without one), no other writer knows it, so all go at once. A client's
   * eventId that is not stored keeps them: a retry of it may be relying on them already, and the
   * orphan sweep takes them once no writer can (or the append that stores the eventId, below).
   */
  private async discardRefused(incidentId: string, written: readonly Written[]): Promise<void> {
    const found = await Promise.all(
      written.map(async (w): Promise<Uncommitted[]> => {
        if (w.ours) return [{ values: w.values, event: null }];
        const event = await this.o.events.findEvent(incidentId, w.eventId);
        return event ? [{ values: w.values, event }] : [];
      }),
    );
    await this.discardUncommitted(found.flat());
  }

  /**
   * Removes the values that `event` (stored; null: none ever will be) does not commit to. After a
   * commit these are what earlier attempts at its eventId left with other values or salts, which
   * nothing else would remove: the orphan sweep keeps every item of a stored event.
   */
  private async discardUncommitted(of: readonly Uncommitted[]): Promise<void> {
    const dead = of.flatMap(({ values, event }) =>
      values.filter(
        (h) => !h.erased && (event === null || commitmentDigest(valueAt(event, h.pointer)) !== h.digest),
      ),
    );
    if (dead.length > 0) await this.o.disclosures.discard(dead);
  }

  /** Seals one envelope, reusing what a first attempt at its eventId left (see the class). */
  private async seal(
    incidentId: string,
    envelope: Envelope & { eventId: string },
    held: readonly HeldDisclosure[],
  ): Promise<Sealing> {
    const erased = new Set(held.filter((h) => h.erased).map((h) => h.pointer));
    const reuse = new Map<string, string>();
    const reused = new Set<string>();
    for (const h of held) {
      if (h.erased || reuse.has(h.pointer)) continue;
      const parts = decodeDisclosure(h.disclosure);
      const value = valueAt(envelope, h.pointer);
      if (parts && value !== undefined && canonicalJson(parts.value) === canonicalJson(value)) {
        reuse.set(h.pointer, parts.salt);
        reused.add(h.key);
      }
    }
    let { sealed, disclosures } = sealEnvelope(envelope, (pointer) => reuse.get(pointer) ?? this.salt());
    if (erased.size > 0) {
      // Erasure needs a stored event: its commitments are what this repeat must carry.
      const stored = await this.o.events.findEvent(incidentId, envelope.eventId);
      for (const pointer of erased) {
        const digest = commitmentDigest(valueAt(stored, pointer));
        if (digest) sealed = withCommitment(sealed, pointer, digest);
      }
      disclosures = disclosures.filter((d) => !erased.has(d.pointer));
    }
    return { sealed, fresh: disclosures.filter((d) => !reuse.has(d.pointer)), reused };
  }

  /** Moves every relied-on item's `writtenAt` to this attempt's; false if one of them is gone. */
  private async refreshAll(
    incidentId: string,
    keys: ReadonlySet<string>,
    writtenAt: string,
  ): Promise<boolean> {
    const moved = await Promise.all(
      [...keys].map((key) => this.o.disclosures.refresh(incidentId, key, writtenAt)),
    );
    return moved.every(Boolean);
  }

  /**
   * After an eventId conflict: the envelopes again with the stored events' commitments, where the
   * stored event is this very one (every public field the same, every sealed value opening its
   * commitment or erased); null when one of them is not.
   */
  private async reseal(
    incidentId: string,
    recordedBy: string,
    envelopes: readonly Envelope[],
    sealed: readonly Envelope[],
  ): Promise<Envelope[] | null> {
    let changed = false;
    const out: Envelope[] = [];
    for (const [i, envelope] of envelopes.entries()) {
      const mine = sealed[i] as Envelope;
      const pointers = sealables(envelope);
      if (pointers.length === 0 || !envelope.eventId) {
        out.push(mine);
        continue;
      }
      const stored = await this.o.events.findEvent(incidentId, envelope.eventId);
      // Another writer's event is never opened with this one's values (checkRepeat says why).
      if (!stored || stored.recordedBy !== recordedBy) return null;
      const held = await this.o.disclosures.ofEvent(incidentId, envelope.eventId);
      let copy = mine;
      for (const { pointer, value } of pointers) {
        const digest = commitmentDigest(valueAt(stored, pointer));
        const item = held.find((h) => h.pointer === pointer && h.digest === digest);
        if (!digest || !item) return null;
        if (!item.erased) {
          const parts = decodeDisclosure(item.disclosure);
          if (!parts || canonicalJson(parts.value) !== canonicalJson(value)) return null;
        }
        copy = withCommitment(copy, pointer, digest);
      }
      changed ||= canonicalJson(copy) !== canonicalJson(mine);
      out.push(copy);
    }
    return changed ? out : null;
  }

  /**
   * A sealed event posted to an incident that does not exist is refused before any disclosure
   * is written, so it leaves no orphan. Only that refusal: every other one (If-Match, an
   * IncidentOpened again) may be a retry the store answers with its first answer, so the store
   * decides them, at the commit.
   */
  private async checkHead(request: AppendRequest): Promise<void> {
    // A cached head can only be stale, never wrong: one past version 0 means the incident exists.
    const head =
      this.o.events.cachedHead(request.incidentId) ?? (await this.o.events.readHead(request.incidentId));
    const breach = checkAppend(head.version, request.envelopes, request.batched);
    if (breach?.kind === "incident-missing") throw breachError(breach);
  }

  /**
   * `VictimsLinked` names live entries: a victim of a `VictimsRecorded` of this incident that is
   * not retracted (a retracted list no longer counts, so a link to it would merge an entry that
   * is not there).
   */
  private async checkReferences(request: AppendRequest, at: (i: number, field: string) => string) {
    if (!request.envelopes.some((e) => e.type === "VictimsLinked")) return;
    const errors: FieldError[] = [];
    const inBatch = new Map<string, Envelope>();
    const retracted = new Set(this.o.retracted ? await this.o.retracted(request.incidentId) : []);
    for (const [i, e] of request.envelopes.entries()) {
      if (e.type === "VictimsLinked") {
        for (const side of ["a", "b"] as const) {
          const ref = e.data[side];
          const target =
            inBatch.get(ref.eventId) ?? (await this.o.events.findEvent(request.incidentId, ref.eventId));
          if (target?.type !== "VictimsRecorded") {
            errors.push({
              path: at(i, `data.${side}.eventId`),
              message: `${ref.eventId} is not a VictimsRecorded event of this incident`,
            });
          } else if (retracted.has(ref.eventId)) {
            errors.push({
              path: at(i, `data.${side}.eventId`),
              message: `${ref.eventId} is retracted: its victims no longer count, so none of them can be linked`,
            });
          } else if (ref.index >= (target.data as { victims: unknown[] }).victims.length) {
            errors.push({
              path: at(i, `data.${side}.index`),
              message: `${ref.eventId} records ${(target.data as { victims: unknown[] }).victims.length} victims: there is no index ${ref.index}`,
            });
          }
        }
      }
      if (e.type === "ReportRetracted") retracted.add(e.data.targetEventId);
      if (e.eventId) inBatch.set(e.eventId, e);
    }
    if (errors.length > 0)
      throw new ValidationError(
        "a VictimsLinked names an entry that does not exist or is retracted; nothing was stored",
        errors,
      );
  }

  /**
   * The stored redaction that erased every one of these values, or null: one of them is not
   * erased, or was erased by a redaction the chain does not hold (or by `self`, being retried).
   */
  private async recordedErasure(
    incidentId: string,
    values: readonly HeldDisclosure[],
    self: string | undefined,
  ): Promise<string | null> {
    let by: string | null = null;
    for (const h of values) {
      if (!h.erased || !h.erasedBy || h.erasedBy === self) return null;
      const redaction = await this.o.events.findEvent(incidentId, h.erasedBy);
      if (redaction?.type !== "RedactionApplied") return null;
      by = h.erasedBy;
    }
    return by;
  }

  /**
   * Checks each `RedactionApplied` (its target a stored event of this incident, each pointer one
   * with a disclosure) and returns its effects, to run once everything else passed.
   */
  private async redactions(
    request: AppendRequest,
    at: (i: number, field: string) => string,
  ): Promise<(() => Promise<void>)[]> {
    const errors: FieldError[] = [];
    const effects: (() => Promise<void>)[] = [];
    for (const [i, e] of request.envelopes.entries()) {
      if (e.type !== "RedactionApplied") continue;
      const { targetEventId, pointers, effect } = e.data;
      const target: StoredEvent | null = await this.o.events.findEvent(request.incidentId, targetEventId);
      if (!target) {
        errors.push({
          path: at(i, "data.targetEventId"),
          message: `${targetEventId} is not a stored event of this incident`,
        });
        continue;
      }
      const held = await this.o.disclosures.ofEvent(request.incidentId, targetEventId);
      const items: HeldDisclosure[] = [];
      for (const [p, pointer] of pointers.entries()) {
        const digest = commitmentDigest(valueAt(target, pointer));
        const matching = digest ? held.filter((h) => h.pointer === pointer && h.digest === digest) : [];
        if (matching.length === 0) {
          errors.push({
            path: at(i, `data.pointers[${p}]`),
            message: `${targetEventId} has no disclosure at ${pointer}`,
          });
          continue;
        }
        // Erased by a redaction the chain records, there is nothing left to withhold or erase.
        // Erased by one it does not (this very one retried after a crash or a lost answer, or one
        // the store refused after its effect, or one posted without an eventId), the erasure
        // happened unrecorded: this redaction records it.
        const recordedBy = await this.recordedErasure(request.incidentId, matching, e.eventId);
        if (recordedBy !== null) {
          errors.push({
            path: at(i, `data.pointers[${p}]`),
            message: `${targetEventId}'s value at ${pointer} is already erased (by ${recordedBy}): there is nothing left to redact`,
          });
          continue;
        }
        // Erasure takes every copy at the pointer, orphans of unstored attempts included.
        items.push(...(effect === "erased" ? held.filter((h) => h.pointer === pointer) : matching));
      }
      const by = e.eventId ?? "redaction";
      effects.push(async () => {
        if (effect === "erased") await this.o.disclosures.erase(items, by);
        else await this.o.disclosures.withhold(items);
      });
    }
    if (errors.length > 0)
      throw new ValidationError("a RedactionApplied names what it cannot redact; nothing was stored", errors);
    return effects;
  }
}

/** The sealed events must fit one commit item: refused with the limit named, never a store error. */
function checkCommitSize(envelopes: readonly Envelope[]): void {
  const bytes = envelopes.reduce(
    (sum, e) => sum + Buffer.byteLength(JSON.stringify(e)) + SERVER_FIELDS_BYTES,
    0,
  );
  if (bytes > COMMIT_EVENTS_BUDGET) {
    throw new PayloadTooLargeError(
      `these events take ${bytes} bytes once sealed (each sealed value becomes a commitment), more than one commit holds (${COMMIT_EVENTS_BUDGET} bytes, under DynamoDB's 400 KB item limit); post them in smaller batches; nothing was stored`,
      [
        {
          path: "(body)",
          message: `is ${bytes} bytes once sealed; at most ${COMMIT_EVENTS_BUDGET} fit DynamoDB's 400 KB item`,
        },
      ],
    );
  }
}
