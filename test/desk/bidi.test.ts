import { describe, expect, it } from "vitest";
import type { StoredEvent } from "../../events/stored-event.js";
import { principal } from "../../functions/http/auth.js";
import { DeskHome, DeskPanel } from "../../functions/http/desk/desk-page.js";
import { type FormState, SuggestionLists } from "../../functions/http/desk/form-kit.js";
import type { FormContext } from "../../functions/http/desk/forms/desk-form.js";
import { DESK_FORMS } from "../../functions/http/desk/forms/registry.js";
import type { OidcClient } from "../../functions/http/desk/oidc.js";
import { ReleaseFields } from "../../functions/http/desk/release-form.js";
import type { Session, Sessions } from "../../functions/http/desk/session.js";
import { signInRoutes } from "../../functions/http/desk/sign-in-routes.js";
import { silentLogger } from "../../functions/logger.js";

/**
 * CONTRACT.md "Bounds and hostile input": any text a client sent is shown bidi-isolated. Every
 * piece of client text below starts with U+202E (RIGHT-TO-LEFT OVERRIDE) and holds a marker of its
 * own; each desk page and form is rendered with it, and every marker must sit in a <bdi> or an
 * element with dir="auto" (a control showing it), or, in an <option> (which can hold no element),
 * between FSI and PDI. The innermost isolate must hold one marker only: a label that joins a
 * speaker and a claim isolates each, so one's override cannot reach the other.
 */

const RLO = "\u202E";
const markers: string[] = [];
/** Client text: an override, then a marker no other text contains. */
const hostile = (what: string) => {
  const marker = `BIDI${String(markers.length).padStart(2, "0")}${what}MARK`;
  markers.push(marker);
  return `${RLO}${marker}`;
};

let version = 1;
const event = (type: string, data: Record<string, unknown>, extra: Partial<StoredEvent> = {}): StoredEvent =>
  ({
    incidentId: "bidi-incident",
    eventId: `bidi-event-${type}-${version}`,
    version: version++,
    type,
    recordedAt: "2026-01-01T00:00:00.000Z",
    recordedBy: "a-writer",
    prevHash: "0".repeat(64),
    hash: "1".repeat(64),
    source: {
      publisher: hostile("Publisher"),
      title: hostile("SourceTitle"),
      url: `https://example.org/${hostile("Url")}`,
    },
    attributedTo: { name: hostile("Name"), role: hostile("Role"), side: hostile("Side") },
    data,
    ...extra,
  }) as StoredEvent;

const sealed = { $sealed: "sha-256:x" };
const events: StoredEvent[] = [
  event("IncidentOpened", {
    title: hostile("IncidentTitle"),
    kind: "shelling",
    description: hostile("Description"),
    location: { name: hostile("Place"), country: "UA" },
  }),
  event("CasualtiesReported", {
    figures: { killed: { value: 4, qualifier: "exact", text: hostile("Words") } },
  }),
  event("StatementMade", {
    quote: hostile("Quote"),
    stance: "accuses",
    accuses: hostile("Accuses"),
    channel: hostile("Channel"),
  }),
  event("DenialIssued", {
    claim: hostile("Claim"),
    counterClaim: hostile("Counter"),
    quote: hostile("DQuote"),
  }),
  event("EvidenceCaptured", { title: hostile("EvidenceTitle"), kind: "image", sha256: "a".repeat(64) }),
  event("VictimsRecorded", {
    victims: [
      { name: sealed, ageGroup: "adult" },
      { name: sealed, status: "civilian" },
    ],
  }),
  // A private reporter: their name is sealed, the page names them by their pseudonym.
  event(
    "VictimsRecorded",
    { victims: [{ name: sealed, diedOn: "2022-04-08" }] },
    { attributedTo: { name: sealed as never, kind: "private", ref: "witness-A" } },
  ),
].reverse();

const context: FormContext = { incidentId: "bidi-incident", events };
const newest = (type: string) => events.find((e) => e.type === type) as StoredEvent;
const markersOf = (e: StoredEvent) => markers.filter((m) => JSON.stringify(e).includes(m));

const VOID = new Set([
  "area",
  "base",
  "br",
  "col",
  "embed",
  "hr",
  "img",
  "input",
  "link",
  "meta",
  "source",
  "wbr",
]);
const TOKENS =
  /<!--[\s\S]*?-->|<!doctype[^>]*>|<\/([a-zA-Z][\w-]*)\s*>|<([a-zA-Z][\w-]*)((?:\s+[^\s"'>/=]+(?:="[^"]*")?)*)\s*\/?>|[^<]+/gi;
const attribute = (attrs: string, name: string) => new RegExp(`\\s${name}="([^"]*)"`).exec(attrs)?.[1];

interface Open {
  tag: string;
  isolating: boolean;
  markers: Set<string>;
}

/** Every marker not shown bidi-isolated, and every isolate that joins two markers, with where. */
function unisolated(html: string): string[] {
  const problems: string[] = [];
  const stack: Open[] = [];
  const where = () => stack.map((o) => o.tag).join(">");
  const close = (open: Open) => {
    if (open.markers.size > 1) problems.push(`one <${open.tag}> joins ${[...open.markers].join(" and ")}`);
  };
  for (const token of html.matchAll(TOKENS)) {
    const [text, closing, tag, attrs = ""] = token;
    if (closing) {
      const at = stack.map((o) => o.tag).lastIndexOf(closing.toLowerCase());
      if (at !== -1) for (const open of stack.splice(at).reverse()) close(open);
    } else if (tag) {
      const name = tag.toLowerCase();
      const autoDir = attribute(attrs, "dir") === "auto";
      const hidden = name === "input" && attribute(attrs, "type") === "hidden";
      const inAttributes = markers.filter((m) => attrs.includes(m));
      if (inAttributes.length > 0 && !autoDir && !hidden)
        problems.push(
          `${inAttributes.join(", ")} in the attributes of <${name}> (${where()}) without dir="auto"`,
        );
      if (inAttributes.length > 1) problems.push(`one <${name}> holds ${inAttributes.join(" and ")}`);
      if (!VOID.has(name) && !text.endsWith("/>"))
        stack.push({ tag: name, isolating: name === "bdi" || autoDir, markers: new Set() });
    } else if (!text.startsWith("<")) {
      const inOption = stack.some((o) => o.tag === "option" || o.tag === "title");
      // FSI … PDI runs of this text: an isolate of its own where the text can hold no element.
      const runs = new Map<number, Set<string>>();
      for (const marker of markers) {
        for (let i = text.indexOf(marker); i !== -1; i = text.indexOf(marker, i + 1)) {
          let depth = 0;
          let start = -1;
          for (let j = 0; j < i; j++) {
            if (text[j] === "\u2068") {
              if (depth === 0) start = j;
              depth++;
            } else if (text[j] === "\u2069") depth = Math.max(0, depth - 1);
          }
          const element = [...stack].reverse().find((o) => o.isolating);
          if (depth > 0 && (inOption || element)) {
            const run = runs.get(start) ?? new Set<string>();
            run.add(marker);
            runs.set(start, run);
          } else if (element) element.markers.add(marker);
          else
            problems.push(
              `${marker} not isolated in ${where()}: ${JSON.stringify(text.trim().slice(0, 160))}`,
            );
        }
      }
      for (const run of runs.values())
        if (run.size > 1) problems.push(`one FSI…PDI run joins ${[...run].join(" and ")}`);
    }
  }
  for (const open of stack.reverse()) close(open);
  return problems;
}

const who = principal(hostile("SignedInName"), ["writer", "editor", "restricted-reader"]);
const session: Session = { who, formToken: "t".repeat(32), expiresAt: Date.now() + 3600_000, id: "s" };
/** Every field of a form filled in with client text, and names from the archive to suggest. */
const filled = (fields: readonly string[]): FormState => ({
  values: new Map(fields.map((f) => [f, hostile(`Typed-${f}`)])),
  errors: new Map(),
  suggestions: { speakers: [hostile("SuggestedSpeaker")], publishers: [hostile("SuggestedPublisher")] },
});

describe("the checker", () => {
  it("finds client text outside an isolate, and one isolate holding two pieces", () => {
    const [a, b] = [hostile("A"), hostile("B")];
    expect(unisolated(`<label>${a}</label>`)).toHaveLength(1);
    expect(unisolated(`<label><bdi>${a}: ${b}</bdi></label>`)).toHaveLength(1);
    expect(unisolated(`<label><bdi>${a}</bdi>: <bdi>${b}</bdi></label>`)).toEqual([]);
    expect(unisolated(`<option>\u2068${a}\u2069 · \u2068${b}\u2069</option>`)).toEqual([]);
    expect(unisolated(`<option>${a}</option>`)).toHaveLength(1);
    expect(unisolated(`<input value="${a}">`)).toHaveLength(1);
    expect(unisolated(`<input dir="auto" value="${a}">`)).toEqual([]);
  });
});

describe("client text on the desk is bidi-isolated, each piece on its own", () => {
  it.each(DESK_FORMS.map((f) => [f.type, f] as const))("the %s form", async (_type, form) => {
    const state = filled(form.fields(new Map()));
    const html = String(await form.Fields({ form: state, context })) + String(await SuggestionLists(state));
    expect(unisolated(html)).toEqual([]);
  });

  it.each([
    ["assessment", "DenialIssued"],
    ["assessment", "StatementMade"],
    ["retraction", "CasualtiesReported"],
    ["redaction", "VictimsRecorded"],
  ])("the %s form's target picker names who said what, where, from the %s event", async (slug, type) => {
    const form = DESK_FORMS.find((f) => f.slug === slug);
    const html = String(await form?.Fields({ form: filled([]), context }));
    const target = newest(type);
    const shown = markersOf(target).filter(
      (m) => !/Url|SourceTitle|Words|Counter|DQuote|Accuses|Channel/.test(m),
    );
    for (const marker of shown) expect(html, marker).toContain(marker);
    expect(unisolated(html)).toEqual([]);
  });

  it("the victims-link form's entries (options: FSI … PDI) name the reporter, a private one by pseudonym", async () => {
    const form = DESK_FORMS.find((f) => f.slug === "victims-link");
    const html = String(await form?.Fields({ form: filled([]), context }));
    const named = events.find((e) => e.type === "VictimsRecorded" && e.attributedTo?.kind !== "private");
    expect(html).toContain(named?.attributedTo?.name);
    expect(html).toContain("private source witness-A");
    expect(html).not.toContain("[object Object]");
    expect(unisolated(html)).toEqual([]);
  });

  it("the desk's own page: the incidents to add to, and who is signed in", async () => {
    const recent = [{ incidentId: "bidi-incident", title: hostile("ListedTitle") }];
    const html = String(
      await DeskHome({ session, offered: DESK_FORMS, release: true, readOnly: false, mayAdd: true, recent }),
    );
    expect(html).toContain(recent[0]?.title);
    expect(html).toContain("<h2>Add to an incident</h2>");
    expect(unisolated(html)).toEqual([]);
  });

  it("the incident page's desk panel", async () => {
    const html = String(await DeskPanel({ session, incidentId: "bidi-incident", offered: DESK_FORMS }));
    expect(html).toContain(who.name);
    expect(unisolated(html)).toEqual([]);
  });

  it("the release form, filled in", async () => {
    const html = String(await ReleaseFields({ form: filled(["name", "note"]) }));
    expect(unisolated(html)).toEqual([]);
  });

  it("the sign-in service's refusal, quoted from the callback's query", async () => {
    const app = signInRoutes({
      signIn: { kind: "oidc", client: {} as OidcClient },
      sessions: {} as Sessions,
      flowKey: new Uint8Array(32),
      log: silentLogger,
    });
    const why = hostile("ErrorDescription");
    const answer = await app.request(
      `/sign-in/callback?error=access_denied&error_description=${encodeURIComponent(why)}`,
    );
    const html = await answer.text();
    expect(html).toContain(why);
    expect(unisolated(html)).toEqual([]);
  });
});
