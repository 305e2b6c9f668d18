import {
  type AttributeValue,
  BatchWriteItemCommand,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
} from "@aws-sdk/client-dynamodb";
import {
  type Bbox,
  cellsCovering,
  cellsOf,
  countReportWords,
  type EntryFacts,
  type EntryFilter,
  factsOf,
  listedDay,
  Mentions,
  monthStart,
  monthsGoingOn,
  passes,
  queryTerms,
  reportTextsIn,
  type SearchDoc,
  searchDoc,
  withReportWords,
  withSources,
  words,
} from "../../events/finding/search-doc.js";
import type { StoredEvent } from "../../events/stored-event.js";
import type { Summary } from "../../events/summarize.js";
import { summarizeInline } from "../../events/summarize.js";
import type { IncidentState } from "../../events/summary.js";
import { BoundedLru } from "../bounded-lru.js";
import {
  BATCH_GET_LIMIT,
  BATCH_WRITE_LIMIT,
  backOff,
  batchGetItems,
  isConditionFailed,
} from "../store/dynamo-idioms.js";

/**
 * The finding index: DynamoDB items the projector writes beside each view (the "search" table,
 * pk/sk strings), so a search is a few Queries whose cost follows the page, not the archive, is
 * fresh as soon as the view is, and runs the same on dynalite and in AWS. One entry per
 * (list, incident), each carrying the facts the filters read:
 *
 *   t#<word>            sk  <99-weight>#<newest-first day>#<incidentId>   words, heaviest first
 *   s#<sourceKey>       sk  <newest-first day>#<incidentId>               speakers and publishers
 *   o#<year>            sk  <newest-first day>#<incidentId>               when it occurred
 *   y#                  sk  <year>#<incidentId>                           the years incidents occurred in, oldest first
 *   c#<century>         sk  <newest-first month's first day>#<incidentId> each later month it went on in
 *   g<level>#<lat:lon>  sk  <newest-first day>#<incidentId>               1°, 10° and 45° grid cells
 *   doc#<incidentId>    sk  "-"                                           the entries it has (for the next update)
 *
 * Sort keys change only when an incident's date or a word's weight does, so most appends rewrite
 * nothing here but the entries of new words and sources.
 */
export interface SearchQuery extends EntryFilter {
  q?: string;
  /** Source keys (`sourceKeysOf`): an incident naming any of them. */
  sources?: readonly string[];
  limit: number;
  cursor?: SearchCursor;
}

/** Where the next page continues: an offset into a bounded window, or a key in the one list read. */
export type SearchCursor = { o: number } | { k: string };

export interface SearchPage {
  items: Summary[];
  /** Where a page cut after each item would go on from (a page is cut to its bytes by the caller). */
  after: SearchCursor[];
  next: SearchCursor | null;
}

/** Entries read per list per request, at most: what bounds a request whatever the archive. */
export const ENTRIES_PER_LIST = 1000;
const QUERY_PAGE = 250;
/** Queries one walk makes at most: a world box's 32 cells, or a century of years, in one request. */
const WALK_QUERIES = 160;
/** Lists of later floors read beside the one a walk needs (the next years of a date range). */
const READ_AHEAD = 8;
/**
 * Years a date range without `from` reaches back from its `to` at least; further, to the oldest
 * year an incident occurred in (the `y#` list), where that is older.
 */
export const YEARS_BACK_UNASKED = 150;
/** The list of the years incidents occurred in: its first entry is the oldest. */
const YEARS = "y#";

/** One list a walk reads, where it stands in it, and the entries read but not yet taken. */
interface Lane {
  pk: string;
  range?: { from: string; to: string };
  /** The incidents among entries just read that may be taken, when the list is not the source's own (`c#` in a source's walk). */
  admit?: (entries: Entry[]) => Promise<Set<string>>;
  /** The key read up to (exclusive start of the next read). */
  from?: string;
  held: Entry[];
  /** The list has nothing past what is held. */
  drained: boolean;
  done: boolean;
}

function lane(
  pk: string,
  range?: { from: string; to: string },
  admit?: (entries: Entry[]) => Promise<Set<string>>,
): Lane {
  return {
    pk,
    ...(range ? { range } : {}),
    ...(admit ? { admit } : {}),
    held: [],
    drained: false,
    done: false,
  };
}

interface Entry extends EntryFacts {
  incidentId: string;
  weight: number;
  sk: string;
}

/** Days as a sort key that puts the newest first ("" — no date — last). */
export function newestFirst(day: string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return "99999999";
  return day
    .replace(/-/g, "")
    .split("")
    .map((d) => String(9 - Number(d)))
    .join("");
}

/**
 * Characters an incident's doc item may give its entries' keys, its counts and facts: well
 * under DynamoDB's 400 KB an item, whatever its names and words.
 */
const DOC_ITEM_CHARS = 300_000;

/**
 * The entries whose keys fit in `chars`, dropping words from the last (entryKeys puts the
 * summary's first, then those kept from older reports and sources' names), so an incident that
 * names too much loses the words of its older reports from the index first; its sources, year
 * and cells stay.
 */
function withinItem(keys: [string, string][], chars: number): [string, string][] {
  const size = ([pk, sk]: [string, string]) => pk.length + sk.length + 8;
  let total = keys.reduce((n, key) => n + size(key), 0);
  if (total <= chars) return keys;
  const dropped = new Set<[string, string]>();
  for (let i = keys.length - 1; i >= 0 && total > chars; i--) {
    const key = keys[i] as [string, string];
    if (!key[0].startsWith("t#")) continue;
    dropped.add(key);
    total -= size(key);
  }
  return keys.filter((key) => !dropped.has(key));
}

function entryKeys(doc: SearchDoc): [string, string][] {
  const day = newestFirst(doc.occurred);
  const tail = `${day}#${doc.incidentId}`;
  const keys: [string, string][] = [];
  for (const [word, weight] of doc.terms)
    keys.push([`t#${word}`, `${String(99 - weight).padStart(2, "0")}#${tail}`]);
  for (const key of doc.sources.keys()) keys.push([`s#${key}`, tail]);
  keys.push([`o#${doc.occurred.slice(0, 4) || "none"}`, tail]);
  if (doc.occurred) keys.push([YEARS, `${doc.occurred.slice(0, 4)}#${doc.incidentId}`]);
  for (const day of monthsGoingOn(doc))
    keys.push([`c#${day.slice(0, 2)}`, `${newestFirst(day)}#${doc.incidentId}`]);
  if (doc.lat !== null && doc.lon !== null) {
    for (const { level, cell } of cellsOf(doc.lat, doc.lon)) keys.push([`g${level}#${cell}`, tail]);
  }
  return keys;
}

function factAttributes(doc: SearchDoc): Record<string, AttributeValue> {
  return {
    id: { S: doc.incidentId },
    occ: { S: doc.occurred },
    // Only an incident that went on for days has one, so a one-day incident's facts are as before.
    ...(doc.until !== "" ? { until: { S: doc.until } } : {}),
    kind: { S: doc.kind },
    country: { S: doc.country },
    contested: { BOOL: doc.contested },
    ...(doc.lat !== null && doc.lon !== null
      ? { lat: { N: String(doc.lat) }, lon: { N: String(doc.lon) } }
      : {}),
  };
}

function entryOf(item: Record<string, AttributeValue>): Entry {
  const sk = item.sk?.S ?? "";
  return {
    incidentId: item.id?.S ?? "",
    occurred: item.occ?.S ?? "",
    until: item.until?.S ?? "",
    kind: item.kind?.S ?? "",
    country: item.country?.S ?? "",
    contested: item.contested?.BOOL === true,
    lat: item.lat?.N === undefined ? null : Number(item.lat.N),
    lon: item.lon?.N === undefined ? null : Number(item.lon.N),
    weight: item.pk?.S?.startsWith("t#") ? 99 - Number(sk.slice(0, 2)) : 0,
    sk,
  };
}

/** What the doc item of an incident holds: its version, facts and entries, and the counts of its reports' words. */
interface StoredDoc {
  /** The summary version its entries stand at. */
  version: number;
  /** The version of the doc item in the table (older than `version` after a write found nothing to change). */
  stored: number;
  facts: string;
  keys: string[];
  said: [string, number][];
}

export class SearchIndex {
  /**
   * The doc items this process wrote or read lately: a warm projector reads none back. Bounded
   * by count: a doc lists every entry of its incident (kilobytes each), and an import meets
   * every incident once, so a larger count only holds more that will not be read again.
   */
  private readonly docs = new BoundedLru<string, StoredDoc>(1_000);

  /**
   * The words of texts indexed lately. An incident's texts barely change from one projection to
   * the next (one new statement beside all the old ones): only new texts are segmented, so a
   * long incident's projection does not cost all its text each time. Weighed in characters.
   */
  private readonly segmented = new BoundedLru<string, string[]>(4_000_000, (text) => text.length);
  private readonly wordsOf = (text: string): string[] => {
    const known = this.segmented.get(text);
    if (known) return known;
    const found = words(text);
    this.segmented.set(text, found);
    return found;
  };

  constructor(
    private readonly db: DynamoDBClient,
    readonly table: string,
    /** The stored summary of an incident, when a redelivered record brings no state (a spilled view stores none: it is indexed at its next projection). */
    private readonly summaryOf: (incidentId: string) => Promise<Summary | null>,
    /** A stored event of the incident by its id: a retracted report folded before, whose words go. */
    private readonly eventOf: (
      incidentId: string,
      eventId: string,
    ) => Promise<{ type: string; data?: unknown } | null>,
    /** The incident's stored events after a version, in order: what a projection that failed to index folded. */
    private readonly eventsOf: (incidentId: string, after: number) => AsyncIterable<StoredEvent>,
  ) {}

  /**
   * Brings an incident's entries to its current summary and what its reports said before
   * (`mentions`: the sources and words of the events a projection folded, counted in the doc
   * item so that a retraction takes back its words; when they do not reach back to the version
   * the doc stands at, the events between are read instead). Safe under overlapping writers:
   * the entries are written first, then the doc item on the condition that it is still the one
   * this update started from. A writer that finds it changed starts again from the new one, or,
   * when that one is as new as its own, puts that doc's entries back (its deletes may have
   * removed some) and deletes the ones it put that the doc lacks.
   */
  async update(incidentId: string, state?: IncidentState, mentions?: Mentions): Promise<void> {
    const summary = state ? summarizeInline(state) : await this.summaryOf(incidentId);
    if (!summary) return;
    for (let attempt = 0; attempt < 5; attempt++) {
      let previous = this.docs.get(incidentId) ?? null;
      if (!previous) {
        previous = await this.readDoc(incidentId);
        if (previous) this.docs.set(incidentId, previous);
      }
      if (previous && previous.version >= summary.version) return;
      const since = previous?.version ?? 0;
      const named =
        mentions && mentions.from <= since
          ? mentions
          : await this.mentionsBetween(incidentId, since, summary.version);
      const said = await this.reportWords(incidentId, previous?.said ?? [], since, summary.version, named);
      // Sources stay: those its entries named before (a summary lists only the latest statements
      // and figures), then those the events just folded name.
      const before = (previous?.keys ?? [])
        .filter((k) => k.startsWith("s#"))
        .map((k) => k.slice(2, k.indexOf("\u0000")));
      const doc = withReportWords(
        withSources(searchDoc(summary, this.wordsOf), [...before, ...named.sources], this.wordsOf),
        said,
      );
      const facts = factAttributes(doc);
      const factsText = JSON.stringify(facts);
      const saidText = JSON.stringify([...said]);
      const keys = withinItem(entryKeys(doc), DOC_ITEM_CHARS - saidText.length - factsText.length);
      const had = new Set(previous?.keys ?? []);
      const keep = new Set(keys.map(([pk, sk]) => `${pk}\u0000${sk}`));
      const puts =
        previous?.facts === factsText ? keys.filter(([pk, sk]) => !had.has(`${pk}\u0000${sk}`)) : keys;
      const deletes = [...had].filter((k) => !keep.has(k)).map((k) => k.split("\u0000") as [string, string]);
      const stored = previous?.stored ?? null;
      // Nothing to change (the usual append: no new word, source, date or count): no write at
      // all; the doc in the table stays at `stored`, which the next write is conditioned on.
      if (
        previous &&
        puts.length === 0 &&
        deletes.length === 0 &&
        JSON.stringify(previous.said) === saidText
      ) {
        this.docs.set(incidentId, { ...previous, version: summary.version });
        return;
      }
      // Puts and deletes never name the same key (a delete is an old key not kept), so they share
      // batches: a projection that moves a few entries makes one call, not one for each kind.
      await this.write([
        ...puts.map(([pk, sk]) => ({ PutRequest: { Item: { pk: { S: pk }, sk: { S: sk }, ...facts } } })),
        ...deletes.map(([pk, sk]) => ({ DeleteRequest: { Key: { pk: { S: pk }, sk: { S: sk } } } })),
      ]);
      try {
        await this.db.send(
          new PutItemCommand({
            TableName: this.table,
            Item: {
              pk: { S: `doc#${incidentId}` },
              sk: { S: "-" },
              version: { N: String(summary.version) },
              facts: { S: factsText },
              keys: { L: [...keep].map((k) => ({ S: k })) },
              said: { S: saidText },
            },
            ...(stored === null
              ? { ConditionExpression: "attribute_not_exists(pk)" }
              : {
                  ConditionExpression: "version = :stored",
                  ExpressionAttributeValues: { ":stored": { N: String(stored) } },
                }),
          }),
        );
        this.docs.set(incidentId, {
          version: summary.version,
          stored: summary.version,
          facts: factsText,
          keys: [...keep],
          said: [...said],
        });
        return;
      } catch (error) {
        if (!isConditionFailed(error)) throw error;
        this.docs.delete(incidentId);
        const newer = await this.readDoc(incidentId);
        if (!newer || newer.version < summary.version) continue;
        const theirs = new Set(newer.keys);
        const items = newer.keys.map((k) => {
          const [pk, sk] = k.split("\u0000") as [string, string];
          return { PutRequest: { Item: { pk: { S: pk }, sk: { S: sk }, ...JSON.parse(newer.facts) } } };
        });
        const mine = puts
          .filter(([pk, sk]) => !theirs.has(`${pk}\u0000${sk}`))
          .map(([pk, sk]) => ({ DeleteRequest: { Key: { pk: { S: pk }, sk: { S: sk } } } }));
        await this.write([...items, ...mine]);
        return;
      }
    }
    throw new Error(`the finding index of ${incidentId} kept changing under this update`);
  }

  /** What the incident's events after `after`, up to `upTo`, name: read when no fold brought them. */
  private async mentionsBetween(incidentId: string, after: number, upTo: number): Promise<Mentions> {
    const mentions = new Mentions(after);
    for await (const event of this.eventsOf(incidentId, after)) {
      if (event.version > upTo) break;
      mentions.note(event);
    }
    return mentions;
  }

  /**
   * The words the incident's reports say, counted: the doc's counts, then the statements and
   * denials folded past them (`since`, up to the summary's version `upTo`), less the reports
   * retracted there (a retracted report folded before is read back for its words).
   */
  private async reportWords(
    incidentId: string,
    counted: readonly [string, number][],
    since: number,
    upTo: number,
    mentions: Mentions,
  ): Promise<Map<string, number>> {
    const counts = new Map(counted);
    const within = (version: number) => version > since && version <= upTo;
    const wordsIn = (texts: readonly string[]) => texts.flatMap((t) => this.wordsOf(t));
    const said: string[][] = [];
    for (const { version, texts } of mentions.said.values()) if (within(version)) said.push(wordsIn(texts));
    const unsaid: string[][] = [];
    for (const [target, version] of mentions.retracted) {
      if (!within(version)) continue;
      const folded = mentions.said.get(target);
      // Said in this projection but already counted (at or before `since`) or not: either way
      // it was counted once, and is taken back once.
      const texts = folded
        ? folded.texts
        : reportTextsIn((await this.eventOf(incidentId, target)) ?? { type: "" });
      if (texts.length > 0) unsaid.push(wordsIn(texts));
    }
    return countReportWords(counts, said, unsaid);
  }

  /** The summary version an incident's entries stand at, or null when it has none. */
  async indexedVersion(incidentId: string): Promise<number | null> {
    const doc = this.docs.get(incidentId) ?? (await this.readDoc(incidentId));
    return doc?.version ?? null;
  }

  private async readDoc(incidentId: string): Promise<StoredDoc | null> {
    const out = await this.db.send(
      new GetItemCommand({
        TableName: this.table,
        Key: { pk: { S: `doc#${incidentId}` }, sk: { S: "-" } },
        ConsistentRead: true,
      }),
    );
    if (!out.Item) return null;
    return {
      version: Number(out.Item.version?.N),
      stored: Number(out.Item.version?.N),
      facts: out.Item.facts?.S ?? "",
      keys: (out.Item.keys?.L ?? []).map((v) => v.S ?? ""),
      // A doc written before the index counted report words has none: they start from its summary's.
      said: out.Item.said?.S ? (JSON.parse(out.Item.said.S) as [string, number][]) : [],
    };
  }

  /** Batch writes of 25, up to four at once (a new incident has a hundred entries or more). */
  private async write(requests: Record<string, unknown>[]): Promise<void> {
    const chunks: Record<string, unknown>[][] = [];
    for (let i = 0; i < requests.length; i += BATCH_WRITE_LIMIT)
      chunks.push(requests.slice(i, i + BATCH_WRITE_LIMIT));
    const one = async (first: Record<string, unknown>[]) => {
      let chunk = first;
      for (let attempt = 0; chunk.length > 0; attempt++) {
        const out = await this.db.send(
          new BatchWriteItemCommand({ RequestItems: { [this.table]: chunk as never } }),
        );
        chunk = (out.UnprocessedItems?.[this.table] ?? []) as typeof chunk;
        if (chunk.length > 0) await backOff(attempt);
      }
    };
    for (let i = 0; i < chunks.length; i += 4) await Promise.all(chunks.slice(i, i + 4).map(one));
  }

  /** Up to `max` entries of one list, from after `start`, optionally within sort-key bounds. */
  private async readList(
    pk: string,
    max: number,
    start?: string,
    range?: { from: string; to: string },
  ): Promise<{ entries: Entry[]; last: string | null }> {
    const entries: Entry[] = [];
    let exclusive: Record<string, AttributeValue> | undefined = start
      ? { pk: { S: pk }, sk: { S: start } }
      : undefined;
    let last: string | null = null;
    while (entries.length < max) {
      const out = await this.db.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: range ? "pk = :p AND sk BETWEEN :a AND :b" : "pk = :p",
          ExpressionAttributeValues: {
            ":p": { S: pk },
            ...(range ? { ":a": { S: range.from }, ":b": { S: range.to } } : {}),
          },
          Limit: Math.min(QUERY_PAGE, max - entries.length),
          ...(exclusive ? { ExclusiveStartKey: exclusive } : {}),
        }),
      );
      for (const item of out.Items ?? []) entries.push(entryOf(item));
      if (!out.LastEvaluatedKey) {
        last = null;
        break;
      }
      exclusive = out.LastEvaluatedKey;
      last = out.LastEvaluatedKey.sk?.S ?? null;
    }
    return { entries, last };
  }

  /**
   * One page of incidents matching every filter given. With several query words: best match
   * first (most words matched, then their weights), ties the newest occurrence first, paging
   * through the best ENTRIES_PER_LIST candidates of each word. Otherwise one list (a word, a
   * source) or several that share one order (a box's grid cells, a date range's years) are
   * walked newest occurrence first, through all of them. Bounded per request either way: a walk
   * reads at most ENTRIES_PER_LIST entries in at most WALK_QUERIES Queries, then comes back
   * short with a cursor to go on from; the page's summaries are one BatchGetItem.
   */
  async search(
    query: SearchQuery,
    summaries: (ids: string[]) => Promise<Map<string, Summary>>,
  ): Promise<SearchPage> {
    const terms = query.q === undefined ? [] : queryTerms(query.q);
    // Symbols and operators only: no word to look for, so nothing matches.
    if (query.q !== undefined && terms.length === 0) return { items: [], after: [], next: null };
    const filter: EntryFilter = {
      ...(query.from !== undefined ? { from: query.from } : {}),
      ...(query.to !== undefined ? { to: query.to } : {}),
      ...(query.bbox !== undefined ? { bbox: query.bbox } : {}),
      ...(query.kind !== undefined ? { kind: query.kind } : {}),
      ...(query.country !== undefined ? { country: query.country } : {}),
      ...(query.contested !== undefined ? { contested: query.contested } : {}),
    };
    const keep = (e: Entry) => passes(e, filter);
    // Words and a source: the words' lists are read, and each candidate looked up in the source's.
    const { sources } = query;
    const admit =
      sources !== undefined && terms.length > 0
        ? (entries: Entry[]) => this.namedIn(sources, entries)
        : undefined;
    // A date range without `from` reaches back to the oldest year any incident occurred in.
    const oldest = query.from === undefined && query.to !== undefined ? await this.oldestYear() : null;
    const walked = terms.length > 1 ? null : this.lanesOf(terms, query, oldest);
    const { to, reach = "" } = walked ?? {};
    /**
     * Whether a date-ordered entry sits at the day its incident is listed at, by these facts (its
     * key starts with that day; a day older than the `c#` lists read is the day it began).
     */
    const atListed = (e: Entry, facts: EntryFacts) => {
      if (to === undefined) return true;
      const day = listedDay(facts, to);
      return e.sk.startsWith(`${newestFirst(day >= reach ? day : facts.occurred)}#`);
    };
    const picked =
      walked === null
        ? await this.rank(terms, keep, query, admit)
        : await this.walk(walked.lanes, (e) => keep(e) && atListed(e, e), {
            limit: query.limit,
            // Whether entries may be dropped (then reads go a page-full at a time).
            filtering: Object.keys(filter).length > 0 || admit !== undefined,
            ...(admit ? { admit } : {}),
            ...(query.cursor && "k" in query.cursor ? { after: query.cursor.k } : {}),
          });
    const found = await summaries(picked.entries.map(({ entry }) => entry.incidentId));
    // A word's entry may name a quote the summary no longer shows (the index keeps the words of
    // every report not retracted), so the summary's text is not a test of a match.
    // Entries a lost race between two projections left (update) carry an older date or place,
    // and sit where the incident no longer is: only an entry with the summary's day and point is
    // taken, so an incident shows once, where it is now; its other facts are checked again too.
    const items: Summary[] = [];
    const after: SearchCursor[] = [];
    const shown = new Set<string>();
    for (const { entry, cursor } of picked.entries) {
      const summary = found.get(entry.incidentId);
      if (!summary || shown.has(entry.incidentId)) continue;
      const now = factsOf(summary);
      if (entry.occurred !== now.occurred || entry.lat !== now.lat || entry.lon !== now.lon) continue;
      if (!passes(now, filter)) continue;
      // Taken at its listed day as the incident stands now. Entries written before the index
      // kept an incident's last day carry none, and no later months: it is found by its first day.
      if (!atListed(entry, entry.until === "" ? { ...now, until: "" } : now)) continue;
      shown.add(entry.incidentId);
      items.push(summary);
      after.push(cursor);
    }
    return { items, after, next: picked.next };
  }

  /** Several words: the best candidates of each word's list, ranked, paged by offset. */
  private async rank(
    terms: string[],
    keep: (e: Entry) => boolean,
    query: SearchQuery,
    admit?: (entries: Entry[]) => Promise<Set<string>>,
  ): Promise<{ entries: { entry: Entry; cursor: SearchCursor }[]; next: SearchCursor | null }> {
    const read = await Promise.all(terms.map((t) => this.readList(`t#${t}`, ENTRIES_PER_LIST)));
    const byIncident = new Map<string, { entry: Entry; matched: number; weight: number }>();
    for (const { entries } of read) {
      for (const e of entries) {
        const seen = byIncident.get(e.incidentId);
        if (seen) {
          seen.matched += 1;
          seen.weight += e.weight;
        } else byIncident.set(e.incidentId, { entry: e, matched: 1, weight: e.weight });
      }
    }
    const candidates = [...byIncident.values()]
      .filter((c) => keep(c.entry))
      .sort(
        (a, b) =>
          b.matched - a.matched ||
          b.weight - a.weight ||
          (a.entry.occurred === b.entry.occurred ? 0 : a.entry.occurred > b.entry.occurred ? -1 : 1) ||
          (a.entry.incidentId < b.entry.incidentId ? -1 : 1),
      );
    const offset = query.cursor && "o" in query.cursor ? query.cursor.o : 0;
    // With a source: candidates are looked up in its list in rank order, until the page and one
    // more are known.
    let ranked = candidates;
    if (admit) {
      ranked = [];
      for (let i = 0; i < candidates.length && ranked.length <= offset + query.limit; i += BATCH_GET_LIMIT) {
        const chunk = candidates.slice(i, i + BATCH_GET_LIMIT);
        const named = await admit(chunk.map((c) => c.entry));
        ranked.push(...chunk.filter((c) => named.has(c.entry.incidentId)));
      }
    }
    const entries = ranked
      .slice(offset, offset + query.limit)
      .map((c, i) => ({ entry: c.entry, cursor: { o: offset + i + 1 } }));
    return { entries, next: offset + query.limit < ranked.length ? { o: offset + query.limit } : null };
  }

  /**
   * The lists a walk reads: its word; else its source; else its box's cells; else its date
   * range's years, each year's list within the range (so that a year's floor says where its
   * entries start, and older years are read only once the newer ones are used up). With a date
   * range, the lists are read from the first day of the range's first month (an incident that
   * began then may go on into the range), beside the centuries' lists of the later months
   * incidents went on in (`c#`, back to `reach`); an incident is then taken only at its
   * listedDay in the range ending `to` (at the day it began, when that is older than the `c#`
   * lists read: a source's or a box's without `from` reach back no further than a year walk), so once.
   */
  private lanesOf(
    terms: string[],
    query: SearchQuery,
    oldest: number | null,
  ): { lanes: Lane[]; to?: string; reach?: string } {
    if (terms.length === 1) return { lanes: [lane(`t#${terms[0]}`)] };
    const dated = query.from !== undefined || query.to !== undefined;
    const { sources } = query;
    if (!dated && sources !== undefined) return { lanes: sources.map((key) => lane(`s#${key}`)) };
    if (!dated && query.bbox) return { lanes: cellsOf2(query.bbox).map((pk) => lane(pk)) };
    // Where the lists of later months are read to, and each incident is listed by: `to`, else
    // the end of next year (a year walk reaches no further; a source's or a box's own lists
    // reach every later day), or `from` where that is later still.
    const ahead = `${this.lastYear()}-12-31`;
    const spread = sources !== undefined || query.bbox !== undefined;
    const to = query.to ?? (spread && query.from !== undefined && query.from > ahead ? query.from : ahead);
    const back = String(
      Math.max(0, Math.min(Number(to.slice(0, 4)) - YEARS_BACK_UNASKED, oldest ?? 9999)),
    ).padStart(4, "0");
    const from = monthStart(query.from ?? `${back}-01-01`);
    // The later months incidents went on in: in a source's walk, each looked up in its lists.
    const going = periods(
      "c#",
      2,
      from,
      to,
      sources && ((entries: Entry[]) => this.namedIn(sources, entries)),
    );
    // A source's and the cells' keys start with the day, as the years' do: a date range is read
    // as a range of keys, not filtered out of the newer entries; without `from`, back to the
    // first, without `to`, on to the last.
    const days = {
      from: newestFirst(query.to ?? "9999-12-31"),
      to: `${newestFirst(query.from === undefined ? "0000-01-01" : from)}#\uffff`,
    };
    const reach = from;
    if (sources !== undefined)
      return { lanes: [...sources.map((key) => lane(`s#${key}`, days)), ...going], to, reach };
    if (query.bbox)
      return { lanes: [...cellsOf2(query.bbox).map((pk) => lane(pk, days)), ...going], to, reach };
    return { lanes: [...periods("o#", 4, from, to), ...going], to, reach };
  }

  /**
   * The oldest year an incident occurred in, by the `y#` list (an index written before that list
   * has none until `npm run reindex`: a range then reaches back YEARS_BACK_UNASKED years).
   */
  private async oldestYear(): Promise<number | null> {
    const out = await this.db.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: "pk = :pk",
        ExpressionAttributeValues: { ":pk": { S: YEARS } },
        ProjectionExpression: "sk",
        Limit: 1,
      }),
    );
    const year = Number(out.Items?.[0]?.sk?.S?.slice(0, 4));
    return Number.isInteger(year) ? year : null;
  }

  /** The newest year a date range without `to` reads: next year (a date a little ahead is kept). */
  private lastYear(): number {
    return new Date().getUTCFullYear() + 1;
  }

  /**
   * Walks lists that share one order (newest occurrence first; a word's list, heaviest first,
   * walks alone) as one merged list, from after `after`: each step takes the smallest next key
   * of all lists, reading a list only when its next key may be the smallest (its floor, or the
   * key it stopped at, is at most the smallest key held). Bounded: at most ENTRIES_PER_LIST
   * entries and WALK_QUERIES Queries, then a short page with the key to go on from.
   */
  private async walk(
    lanes: Lane[],
    keep: (e: Entry) => boolean,
    options: {
      limit: number;
      filtering: boolean;
      after?: string;
      /** The incidents among entries just read that may be taken (looked up elsewhere, a chunk at a time). */
      admit?: (entries: Entry[]) => Promise<Set<string>>;
    },
  ): Promise<{ entries: { entry: Entry; cursor: SearchCursor }[]; next: SearchCursor | null }> {
    const { limit, after, admit } = options;
    const barred = new Set<Entry>();
    for (const l of lanes) {
      if (after === undefined) continue;
      if (l.range && after >= l.range.to) l.done = true;
      else if (!l.range || after >= l.range.from) l.from = after;
    }
    // Unfiltered, a page needs one entry past it (to know whether there is more); filtered, a
    // page-full read, shared among the lists read together.
    const chunk = (together: number) =>
      options.filtering ? Math.max(limit + 1, Math.ceil(QUERY_PAGE / together)) : limit + 1;
    const picked: { entry: Entry; cursor: SearchCursor }[] = [];
    let reached = after;
    let read = 0;
    let queries = 0;
    const floor = (l: Lane) => l.held[0]?.sk ?? l.from ?? l.range?.from ?? "";
    while (picked.length < limit) {
      const open = lanes.filter((l) => !l.done);
      if (open.length === 0) break;
      const heldLow = open.reduce<string | null>(
        (low, l) => (l.held[0] && (low === null || l.held[0].sk < low) ? l.held[0].sk : low),
        null,
      );
      const toRead = open
        .filter((l) => l.held.length === 0 && (heldLow === null || floor(l) <= heldLow))
        .sort((a, b) => (floor(a) < floor(b) ? -1 : floor(a) > floor(b) ? 1 : 0));
      if (toRead.length === 0) {
        const next = open.find((l) => l.held[0]?.sk === heldLow) as Lane;
        const entry = next.held.shift() as Entry;
        if (next.held.length === 0 && next.drained) next.done = true;
        // The same key just taken from another list: the same incident (named and by pseudonym).
        const again = entry.sk === reached;
        reached = entry.sk;
        if (!again && !barred.has(entry) && keep(entry)) picked.push({ entry, cursor: { k: entry.sk } });
        continue;
      }
      if (read >= ENTRIES_PER_LIST || queries >= WALK_QUERIES) break;
      // The lists that may hold the smallest key, all of them (a box's cells share a floor), and
      // the next few by floor (a range's older years), read in parallel.
      const low = floor(toRead[0] as Lane);
      const batch = toRead
        .filter((l, i) => floor(l) === low || i < READ_AHEAD)
        .slice(0, WALK_QUERIES - queries);
      queries += batch.length;
      await Promise.all(
        batch.map(async (l) => {
          const got = await this.readList(l.pk, chunk(batch.length), l.from, l.range);
          read += got.entries.length;
          const admitted = l.admit ?? admit;
          if (admitted && got.entries.length > 0) {
            const named = await admitted(got.entries);
            for (const e of got.entries) if (!named.has(e.incidentId)) barred.add(e);
          }
          l.held = got.entries;
          const last = got.entries[got.entries.length - 1];
          if (last) l.from = last.sk;
          l.drained = got.last === null;
          if (l.held.length === 0 && l.drained) l.done = true;
        }),
      );
    }
    const open = lanes.filter((l) => !l.done);
    if (open.length === 0) return { entries: picked, next: null };
    // Everything before the smallest key still unread is seen: the next page goes on from the
    // last key taken or, when lists were used up past it (empty years), from the end of those.
    const unread = open.map(floor).sort()[0] as string;
    for (const l of lanes) {
      const end = l.range?.to;
      if (l.done && end !== undefined && end < unread && (reached === undefined || end > reached))
        reached = end;
    }
    return { entries: picked, next: reached === undefined ? null : { k: reached } };
  }

  /** The incidents among `entries` that name one of `sources`: a point lookup of each in the sources' lists (their keys are the entries' days and ids). */
  private async namedIn(sources: readonly string[], entries: Entry[]): Promise<Set<string>> {
    const sks = [...new Set(entries.map((e) => `${newestFirst(e.occurred)}#${e.incidentId}`))];
    const keys = sources.flatMap((source) => sks.map((sk) => ({ pk: { S: `s#${source}` }, sk: { S: sk } })));
    const found = await batchGetItems(this.db, this.table, keys, { projection: "id" });
    return new Set(found.map((item) => item.id?.S ?? ""));
  }
}

/**
 * The lists of a date range kept by period (`o#<year>`: 4 digits; `c#<century>`: 2), newest
 * first, each read within the range's days.
 */
function periods(
  prefix: string,
  digits: 2 | 4,
  from: string,
  to: string,
  admit?: (entries: Entry[]) => Promise<Set<string>>,
): Lane[] {
  const lanes: Lane[] = [];
  // A range that ends before it begins (a year walk's `from` past next year) has no lists to read.
  if (from > to) return lanes;
  const first = (p: string) => `${p}${"0".repeat(4 - digits)}-01-01`;
  const last = (p: string) => `${p}${"9".repeat(4 - digits)}-12-31`;
  for (let n = Number(to.slice(0, digits)); n >= Number(from.slice(0, digits)); n -= 1) {
    const p = String(n).padStart(digits, "0");
    const newest = newestFirst(to < last(p) ? to : last(p));
    const oldest = newestFirst(from > first(p) ? from : first(p));
    lanes.push(lane(`${prefix}${p}`, { from: newest, to: `${oldest}#\uffff` }, admit));
  }
  return lanes;
}

function cellsOf2(bbox: Bbox): string[] {
  const { level, cells } = cellsCovering(bbox);
  return cells.map((c) => `g${level}#${c}`);
}
