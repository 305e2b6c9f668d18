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
  type EntryFacts,
  type EntryFilter,
  passes,
  queryTerms,
  type SearchDoc,
  searchDoc,
  words,
} from "../../events/finding/search-doc.js";
import type { Summary } from "../../events/summarize.js";
import { summarizeInline } from "../../events/summarize.js";
import type { IncidentState } from "../../events/summary.js";
import { BoundedLru } from "../bounded-lru.js";
import { BATCH_WRITE_LIMIT, backOff, isConditionFailed } from "../store/dynamo-idioms.js";

/**
 * The finding index: DynamoDB items the projector writes beside each view (the "search" table,
 * pk/sk strings), so a search is a few Queries whose cost follows the page, not the archive, is
 * fresh as soon as the view is, and runs the same on dynalite and in AWS. One entry per
 * (list, incident), each carrying the facts the filters read:
 *
 *   t#<word>            sk  <99-weight>#<newest-first day>#<incidentId>   words, heaviest first
 *   s#<sourceKey>       sk  <newest-first day>#<incidentId>               speakers and publishers
 *   o#<year>            sk  <newest-first day>#<incidentId>               when it occurred
 *   g<level>#<lat:lon>  sk  <newest-first day>#<incidentId>               1°, 10° and 45° grid cells
 *   doc#<incidentId>    sk  "-"                                           the entries it has (for the next update)
 *
 * Sort keys change only when an incident's date or a word's weight does, so most appends rewrite
 * nothing here but the entries of new words and sources.
 */
export interface SearchQuery extends EntryFilter {
  q?: string;
  source?: string;
  limit: number;
  cursor?: SearchCursor;
}

/** Where the next page continues: an offset into a bounded window, or a key in the one list read. */
export type SearchCursor = { o: number } | { k: string };

export interface SearchPage {
  items: Summary[];
  next: SearchCursor | null;
}

/** Entries read per list per request, at most: what bounds a request whatever the archive. */
export const ENTRIES_PER_LIST = 1000;
const QUERY_PAGE = 250;

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

function entryKeys(doc: SearchDoc): [string, string][] {
  const day = newestFirst(doc.occurred);
  const tail = `${day}#${doc.incidentId}`;
  const keys: [string, string][] = [];
  for (const [word, weight] of doc.terms)
    keys.push([`t#${word}`, `${String(99 - weight).padStart(2, "0")}#${tail}`]);
  for (const key of doc.sources.keys()) keys.push([`s#${key}`, tail]);
  keys.push([`o#${doc.occurred.slice(0, 4) || "none"}`, tail]);
  if (doc.lat !== null && doc.lon !== null) {
    for (const { level, cell } of cellsOf(doc.lat, doc.lon)) keys.push([`g${level}#${cell}`, tail]);
  }
  return keys;
}

function factsOf(doc: SearchDoc): Record<string, AttributeValue> {
  return {
    id: { S: doc.incidentId },
    occ: { S: doc.occurred },
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
    kind: item.kind?.S ?? "",
    country: item.country?.S ?? "",
    contested: item.contested?.BOOL === true,
    lat: item.lat?.N === undefined ? null : Number(item.lat.N),
    lon: item.lon?.N === undefined ? null : Number(item.lon.N),
    weight: item.pk?.S?.startsWith("t#") ? 99 - Number(sk.slice(0, 2)) : 0,
    sk,
  };
}

export class SearchIndex {
  /**
   * The doc items this process wrote or read lately: a warm projector reads none back. Bounded
   * by count: a doc lists every entry of its incident (kilobytes each), and an import meets
   * every incident once, so a larger count only holds more that will not be read again.
   */
  private readonly docs = new BoundedLru<string, { version: number; facts: string; keys: string[] }>(1_000);

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
  ) {}

  /**
   * Brings an incident's entries to its current summary. Safe under overlapping projectors: the
   * entries are written first, then the doc item under a version condition; a writer that loses
   * that race puts back every entry of the newer doc (deletes it made may have removed some).
   * Entries left from an older version only ever add candidates, which `search` checks against
   * the summaries it returns.
   */
  async update(incidentId: string, state?: IncidentState): Promise<void> {
    const summary = state ? summarizeInline(state) : await this.summaryOf(incidentId);
    if (!summary) return;
    let previous = this.docs.get(incidentId) ?? null;
    if (!previous) {
      previous = await this.readDoc(incidentId);
      if (previous) this.docs.set(incidentId, previous);
    }
    if (previous && previous.version >= summary.version) return;
    const doc = searchDoc(summary, this.wordsOf);
    const facts = factsOf(doc);
    const factsText = JSON.stringify(facts);
    const keys = entryKeys(doc);
    const had = new Set(previous?.keys ?? []);
    const keep = new Set(keys.map(([pk, sk]) => `${pk}\u0000${sk}`));
    const puts =
      previous?.facts === factsText ? keys.filter(([pk, sk]) => !had.has(`${pk}\u0000${sk}`)) : keys;
    const deletes = [...had].filter((k) => !keep.has(k)).map((k) => k.split("\u0000") as [string, string]);
    const written = { version: summary.version, facts: factsText, keys: [...keep] };
    // Nothing to change (the usual append: no new word, source or date): no write at all.
    if (previous && puts.length === 0 && deletes.length === 0) {
      this.docs.set(incidentId, written);
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
          },
          ConditionExpression: "attribute_not_exists(pk) OR version < :v",
          ExpressionAttributeValues: { ":v": { N: String(summary.version) } },
        }),
      );
      this.docs.set(incidentId, written);
    } catch (error) {
      if (!isConditionFailed(error)) throw error;
      this.docs.delete(incidentId);
      const newer = await this.readDoc(incidentId);
      if (!newer) return;
      const items = newer.keys.map((k) => {
        const [pk, sk] = k.split("\u0000") as [string, string];
        return { PutRequest: { Item: { pk: { S: pk }, sk: { S: sk }, ...JSON.parse(newer.facts) } } };
      });
      await this.write(items);
    }
  }

  private async readDoc(
    incidentId: string,
  ): Promise<{ version: number; facts: string; keys: string[] } | null> {
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
      facts: out.Item.facts?.S ?? "",
      keys: (out.Item.keys?.L ?? []).map((v) => v.S ?? ""),
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
   * One page of incidents matching every filter given. With `q`: best match first (most query
   * words matched, then their weights), ties the newest occurrence first; otherwise the newest
   * occurrence first. Bounded per request: at most ENTRIES_PER_LIST entries of each list it reads
   * (≤ 8 words, one source, ≤ 32 grid cells or the years of a date range, capped), then one
   * BatchGetItem of the page's summaries. With one list to read, pages continue through all of
   * it; with several (several words, cells or years), they page through the best
   * ENTRIES_PER_LIST candidates of each.
   */
  async search(
    query: SearchQuery,
    summaries: (ids: string[]) => Promise<Map<string, Summary>>,
  ): Promise<SearchPage> {
    const terms = query.q === undefined ? [] : queryTerms(query.q);
    // Symbols and operators only: no word to look for, so nothing matches.
    if (query.q !== undefined && terms.length === 0) return { items: [], next: null };
    const filter: EntryFilter = {
      ...(query.from !== undefined ? { from: query.from } : {}),
      ...(query.to !== undefined ? { to: query.to } : {}),
      ...(query.bbox !== undefined ? { bbox: query.bbox } : {}),
      ...(query.kind !== undefined ? { kind: query.kind } : {}),
      ...(query.country !== undefined ? { country: query.country } : {}),
      ...(query.contested !== undefined ? { contested: query.contested } : {}),
    };
    const lists = this.plan(terms, query);
    // Whether a filter may drop entries of the list read (then reads go a page-full at a time).
    const filtering = Object.keys(filter).length > 0;
    let ranked: Entry[];
    let next: SearchCursor | null = null;
    if (lists.length === 1 && (query.cursor === undefined || "k" in query.cursor)) {
      // One list: walk it in its own order, filtering, with a key to continue from.
      const [only] = lists as [{ pk: string; range?: { from: string; to: string } }];
      const found: Entry[] = [];
      let start = query.cursor && "k" in query.cursor ? query.cursor.k : undefined;
      let read = 0;
      let more = true;
      scan: while (more && read < ENTRIES_PER_LIST) {
        // Unfiltered, a page needs one entry past it (to know whether there is more); filtered, a page-full read.
        const want = filtering ? QUERY_PAGE : query.limit + 1;
        const chunk = await this.readList(
          only.pk,
          Math.min(want, ENTRIES_PER_LIST - read),
          start,
          only.range,
        );
        read += chunk.entries.length;
        more = chunk.last !== null;
        for (const [i, e] of chunk.entries.entries()) {
          start = e.sk;
          if (passes(e, filter)) found.push(e);
          if (found.length === query.limit) {
            more = more || i < chunk.entries.length - 1;
            break scan;
          }
        }
        if (chunk.entries.length === 0) more = false;
      }
      next = more && start !== undefined ? { k: start } : null;
      ranked = found;
    } else {
      const read = await Promise.all(
        lists.map((l) => this.readList(l.pk, ENTRIES_PER_LIST, undefined, l.range)),
      );
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
      const sourceSet =
        query.source !== undefined && terms.length > 0 ? await this.sourceIncidents(query.source) : null;
      ranked = [...byIncident.values()]
        .filter((c) => passes(c.entry, filter) && (sourceSet === null || sourceSet.has(c.entry.incidentId)))
        .sort(
          (a, b) =>
            b.matched - a.matched ||
            b.weight - a.weight ||
            (a.entry.occurred === b.entry.occurred ? 0 : a.entry.occurred > b.entry.occurred ? -1 : 1) ||
            (a.entry.incidentId < b.entry.incidentId ? -1 : 1),
        )
        .map((c) => c.entry);
      const offset = query.cursor && "o" in query.cursor ? query.cursor.o : 0;
      const pageEntries = ranked.slice(offset, offset + query.limit);
      next = offset + query.limit < ranked.length ? { o: offset + query.limit } : null;
      ranked = pageEntries;
    }
    const found = await summaries(ranked.map((e) => e.incidentId));
    // An entry left by an older version of its incident may name a word it no longer has: a
    // summary whose text lacks every query word is dropped (a substring test, a superset of the
    // word test, cheap enough for every page).
    const items = ranked
      .map((e) => found.get(e.incidentId))
      .filter((s): s is Summary => s !== undefined)
      .filter((s) => terms.length === 0 || mentionsAny(s, terms));
    return { items, next };
  }

  /** The lists a query reads: its words; else its source; else its box's cells; else its date range's years. */
  private plan(terms: string[], query: SearchQuery): { pk: string; range?: { from: string; to: string } }[] {
    if (terms.length > 0) return terms.map((t) => ({ pk: `t#${t}` }));
    if (query.source !== undefined) return [{ pk: `s#${query.source}` }];
    if (query.bbox) return cellsOf2(query.bbox).map((pk) => ({ pk }));
    const to = query.to ?? "9999-12-31";
    const from = query.from ?? "0000-01-01";
    const last = Math.min(Number(to.slice(0, 4)), new Date().getUTCFullYear() + 1);
    const first = Math.max(Number(from.slice(0, 4)), last - 29);
    const years: { pk: string; range: { from: string; to: string } }[] = [];
    for (let y = last; y >= first; y -= 1) {
      years.push({ pk: `o#${y}`, range: { from: newestFirst(to), to: `${newestFirst(from)}#\uffff` } });
    }
    return years;
  }

  /** Incidents naming a source, for a query that also has words (bounded like any list). */
  private async sourceIncidents(source: string): Promise<Set<string>> {
    const { entries } = await this.readList(`s#${source}`, ENTRIES_PER_LIST);
    return new Set(entries.map((e) => e.incidentId));
  }
}

/** The summary of a state just folded; null when its lists spilled into stored pieces (then it is read). */

function mentionsAny(summary: Summary, terms: readonly string[]): boolean {
  const text = JSON.stringify(summary).normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase();
  return terms.some((t) => text.includes(t));
}

function cellsOf2(bbox: Bbox): string[] {
  const { level, cells } = cellsCovering(bbox);
  return cells.map((c) => `g${level}#${c}`);
}
