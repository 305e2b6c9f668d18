import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { figureBounds } from "./figures.js";
import type { Envelope, Figure } from "./schemas.js";
import type { StoredEvent } from "./stored-event.js";
import { summarize } from "./summarize.js";
import {
  emptyState,
  evolve,
  fold,
  type IncidentState,
  LATEST_STATEMENTS,
  SUMMARY_TEXT_LIMIT,
} from "./summary.js";
import {
  about,
  assessment,
  atLeast,
  by,
  casualties,
  denial,
  exact,
  given,
  INCIDENT,
  opened,
  retraction,
  sealAll,
  statement,
} from "./test-kit.js";

const dozens = (text?: string): Figure => (text ? { qualifier: "dozens", text } : { qualifier: "dozens" });

describe("the seed article (Kramatorsk, Bucha, Borodyanka)", () => {
  const authorities = casualties("kramatorsk-ua-authorities-toll", "Ukrainian authorities", {
    killed: { value: 50, qualifier: "at-least", text: "at least 50" },
    injured: dozens("dozens more"),
  });
  const prosecutor = casualties(
    "kramatorsk-prosecutor-present",
    "Office of the Prosecutor-General of Ukraine",
    {
      present: { value: 4000, qualifier: "about", text: "About 4,000 civilians" },
    },
  );
  const governor = casualties("kramatorsk-governor-toll", "Pavlo Kyrylenko", {
    killed: exact(50),
    childrenKilled: exact(5),
    injured: dozens("many dozens"),
  });

  it("given the opening, then the summary carries its title, kind, place and day", () => {
    given()
      .when(opened())
      .then((s) => {
        expect(s).toMatchObject({
          incidentId: INCIDENT,
          version: 1,
          title: "Missile strike on Kramatorsk railway station",
          kind: "missile-strike",
          location: { name: "Kramatorsk railway station", country: "UA" },
          occurredOn: "2022-04-08",
          occurredAt: null,
          casualties: {},
          denials: [],
          contested: false,
          retractedEventIds: [],
        });
      });
  });

  it("given 'at least 50' (authorities), then killed is 50 and open-ended", () => {
    given(opened())
      .when(authorities)
      .then((s) => {
        expect(s.casualties.killed).toMatchObject({ low: 50, high: null, reports: 1 });
        expect(s.casualties.killed?.latest).toMatchObject({
          figure: { value: 50, qualifier: "at-least", text: "at least 50" },
          attributedTo: { name: "Ukrainian authorities" },
          eventId: "kramatorsk-ua-authorities-toll",
          version: 2,
        });
      });
  });

  it("given 'at least 50' and then the governor's '50 killed including five children', then killed stays 50–open and children are exactly 5", () => {
    given(opened(), authorities)
      .when(governor)
      .then((s) => {
        expect(s.casualties.killed).toMatchObject({ low: 50, high: null, reports: 2 });
        expect(s.casualties.killed?.bySource.map((r) => r.attributedTo.name).sort()).toEqual([
          "Pavlo Kyrylenko",
          "Ukrainian authorities",
        ]);
        expect(s.casualties.killed?.latest?.eventId).toBe("kramatorsk-governor-toll");
        expect(s.casualties.childrenKilled).toMatchObject({ low: 5, high: 5, reports: 1 });
      });
  });

  it("given 'dozens' and 'many dozens' wounded, then injured is 24–99 and the words are kept", () => {
    given(opened(), authorities)
      .when(governor)
      .then((s) => {
        expect(s.casualties.injured).toMatchObject({ low: 24, high: 99, reports: 2 });
        expect(s.casualties.injured?.latest?.figure).toEqual({ qualifier: "dozens", text: "many dozens" });
      });
  });

  it("given 'about 4,000' present, then present is 4000–4000", () => {
    given(opened())
      .when(prosecutor)
      .then((s) => expect(s.casualties.present).toMatchObject({ low: 4000, high: 4000, reports: 1 }));
  });

  it("given 'about 67' buried in Bucha and '26 bodies' in Borodyanka, then each incident's killed is its own", () => {
    given(opened("bucha-grave-opened"))
      .when(
        casualties("bucha-grave-prosecutor-toll", "Office of the Prosecutor-General of Ukraine", {
          killed: about(67),
        }),
      )
      .then((s) => expect(s.casualties.killed).toMatchObject({ low: 67, high: 67 }));
    given(opened("borodyanka-opened"))
      .when(casualties("borodyanka-zelenskyy-bodies", "Volodymyr Zelenskyy", { killed: exact(26) }))
      .then((s) => expect(s.casualties.killed).toMatchObject({ low: 26, high: 26 }));
  });

  it("given Peskov's denial and the experts' 'false', then the incident is contested and the denial's status is false", () => {
    given(opened(), authorities, denial("kramatorsk-peskov-missile-denial", "Dmitry Peskov"))
      .when(assessment("kramatorsk-experts-dismiss", "kramatorsk-peskov-missile-denial", "false"))
      .then((s) => {
        expect(s.contested).toBe(true);
        expect(s.denials).toEqual([
          expect.objectContaining({
            eventId: "kramatorsk-peskov-missile-denial",
            attributedTo: { name: "Dmitry Peskov" },
            status: "false",
            assessments: [
              expect.objectContaining({ eventId: "kramatorsk-experts-dismiss", verdict: "false" }),
            ],
          }),
        ]);
      });
  });
});

describe("casualties: low, high and each source's latest report", () => {
  it("given 'exactly 12' and 'at least 15' from two sources, then low 15, high null", () => {
    given(opened(), casualties("a-report-1", "Mayor", { killed: exact(12) }))
      .when(casualties("b-report-1", "Governor", { killed: atLeast(15) }))
      .then((s) => expect(s.casualties.killed).toMatchObject({ low: 15, high: null }));
  });

  it("given 'exactly 12' and 'about 20' from two sources, then low 20, high 20", () => {
    given(opened(), casualties("a-report-1", "Mayor", { killed: exact(12) }))
      .when(casualties("b-report-1", "Governor", { killed: about(20) }))
      .then((s) => expect(s.casualties.killed).toMatchObject({ low: 20, high: 20 }));
  });

  it("given one source's 'at least 50' and then its own 'exactly 52', then only the latest counts", () => {
    given(opened(), casualties("gov-report-1", "Governor", { killed: atLeast(50) }))
      .when(casualties("gov-report-2", "Governor", { killed: exact(52) }))
      .then((s) => {
        expect(s.casualties.killed).toMatchObject({ low: 52, high: 52, reports: 2 });
        expect(s.casualties.killed?.bySource).toHaveLength(1);
        expect(s.casualties.killed?.bySource[0]?.eventId).toBe("gov-report-2");
      });
  });

  it("given a source's later report that lowers its figure, then the lower figure is what counts", () => {
    given(opened(), casualties("gov-report-1", "Governor", { killed: exact(60) }))
      .when(casualties("gov-report-2", "Governor", { killed: exact(50) }))
      .then((s) => expect(s.casualties.killed).toMatchObject({ low: 50, high: 50 }));
  });

  it("given a source's later report of another category only, then its earlier figure still counts", () => {
    given(opened(), casualties("gov-report-1", "Governor", { killed: exact(50) }))
      .when(casualties("gov-report-2", "Governor", { injured: dozens() }))
      .then((s) => {
        expect(s.casualties.killed).toMatchObject({ low: 50, high: 50, reports: 1 });
        expect(s.casualties.injured).toMatchObject({ low: 24, high: 99, reports: 1 });
      });
  });

  it("given two speakers of one publisher, then they are two sources; one speaker with two roles is one", () => {
    const withRole = (eventId: string, role: string, figure: Figure): Envelope => ({
      ...casualties(eventId, "Pavlo Kyrylenko", { killed: figure }),
      attributedTo: by("Pavlo Kyrylenko", { role }),
    });
    given(
      opened(),
      withRole("gov-1", "Governor", exact(30)),
      casualties("mayor-1", "Mayor", { killed: exact(40) }),
    )
      .when(withRole("gov-2", "Head of military administration", exact(35)))
      .then((s) => {
        expect(s.casualties.killed?.bySource.map((r) => r.eventId).sort()).toEqual(["gov-2", "mayor-1"]);
        expect(s.casualties.killed).toMatchObject({ low: 40, high: 40 });
      });
  });

  it("given several sources, then latest is the most recently recorded of them", () => {
    given(
      opened(),
      casualties("a-report-1", "A", { killed: exact(1) }),
      casualties("b-report-1", "B", { killed: exact(2) }),
    )
      .when(casualties("a-report-2", "A", { killed: exact(3) }))
      .then((s) => {
        expect(s.casualties.killed?.latest).toMatchObject({ eventId: "a-report-2", version: 4 });
        expect(s.casualties.killed?.latest?.recordedAt).toBe(s.lastRecordedAt);
      });
  });

  it("given a source's latest report retracted, then its previous report comes back", () => {
    given(
      opened(),
      casualties("gov-report-1", "Governor", { killed: atLeast(50) }),
      casualties("gov-report-2", "Governor", { killed: exact(52) }),
    )
      .when(retraction("retract-gov-2", "gov-report-2"))
      .then((s) => {
        expect(s.casualties.killed).toMatchObject({ low: 50, high: null, reports: 2 });
        expect(s.casualties.killed?.latest?.eventId).toBe("gov-report-1");
        expect(s.retractedEventIds).toEqual(["gov-report-2"]);
      });
  });

  it("given a source's earlier report retracted, then its latest is unchanged", () => {
    given(
      opened(),
      casualties("gov-report-1", "Governor", { killed: atLeast(50) }),
      casualties("gov-report-2", "Governor", { killed: exact(52) }),
    )
      .when(retraction("retract-gov-1", "gov-report-1"))
      .then((s) => expect(s.casualties.killed).toMatchObject({ low: 52, high: 52, reports: 2 }));
  });

  it("given the open-ended source retracted, then high closes to the others' largest upper bound", () => {
    given(
      opened(),
      casualties("a-report-1", "Mayor", { killed: exact(12) }),
      casualties("b-report-1", "Governor", { killed: atLeast(15) }),
    )
      .when(retraction("retract-b-1", "b-report-1"))
      .then((s) => {
        expect(s.casualties.killed).toMatchObject({ low: 12, high: 12, reports: 2 });
        expect(s.casualties.killed?.bySource.map((r) => r.eventId)).toEqual(["a-report-1"]);
      });
  });

  it("given a report of several categories retracted, then it stops counting in each", () => {
    given(
      opened(),
      casualties("gov-report-1", "Governor", { killed: exact(50), childrenKilled: exact(5) }),
      casualties("mayor-report-1", "Mayor", { killed: exact(40) }),
    )
      .when(retraction("retract-gov-1", "gov-report-1"))
      .then((s) => {
        expect(s.casualties.killed).toMatchObject({ low: 40, high: 40, reports: 2 });
        expect(s.casualties.childrenKilled).toMatchObject({
          low: null,
          high: null,
          latest: null,
          bySource: [],
        });
        expect(s.casualties.childrenKilled?.reports).toBe(1);
      });
  });
});

describe("statements", () => {
  it(`given a quote longer than ${SUMMARY_TEXT_LIMIT} characters, then the summary clips it by code point and the event keeps it whole`, () => {
    const long = "😀".repeat(SUMMARY_TEXT_LIMIT + 5);
    given(opened())
      .when(statement("st-long", "Speaker", long))
      .then((s) => {
        const quoted = s.statements.latest[0]?.quote ?? "";
        expect(Array.from(quoted)).toHaveLength(SUMMARY_TEXT_LIMIT);
        expect(quoted.endsWith("😀…")).toBe(true);
      });
  });

  it(`given ${SUMMARY_TEXT_LIMIT - 400} emoji (more UTF-16 units than the limit, fewer characters), then the quote is not clipped`, () => {
    const short = "😀".repeat(SUMMARY_TEXT_LIMIT - 400);
    given(opened())
      .when(statement("st-short", "Speaker", short))
      .then((s) => expect(s.statements.latest[0]?.quote).toBe(short));
  });

  it("given statements, then count counts them and latest quotes the newest first", () => {
    given(opened(), statement("st-zelenskyy", "Volodymyr Zelenskyy", "This is an evil without limits."))
      .when(statement("st-guterres", "Antonio Guterres", "completely unacceptable"))
      .then((s) => {
        expect(s.statements.count).toBe(2);
        expect(s.statements.latest.map((r) => [r.eventId, r.quote, r.stance])).toEqual([
          ["st-guterres", "completely unacceptable", "condemns"],
          ["st-zelenskyy", "This is an evil without limits.", "condemns"],
        ]);
      });
  });

  it(`given more than ${LATEST_STATEMENTS} statements, then count counts all and latest quotes ${LATEST_STATEMENTS}`, () => {
    const many = Array.from({ length: LATEST_STATEMENTS + 2 }, (_, i) =>
      statement(`statement-${i}`, `Speaker ${i}`),
    );
    given(opened(), ...many.slice(0, -1))
      .when(...many.slice(-1))
      .then((s) => {
        expect(s.statements.count).toBe(LATEST_STATEMENTS + 2);
        expect(s.statements.latest).toHaveLength(LATEST_STATEMENTS);
        expect(s.statements.latest[0]?.eventId).toBe(`statement-${LATEST_STATEMENTS + 1}`);
      });
  });

  it("given a statement retracted, then it stops counting and is listed as retracted", () => {
    given(opened(), statement("st-a-statement", "A"), statement("st-b-statement", "B"))
      .when(retraction("retract-st-a", "st-a-statement"))
      .then((s) => {
        expect(s.statements.count).toBe(1);
        expect(s.statements.latest.map((r) => r.eventId)).toEqual(["st-b-statement"]);
        expect(s.retractedEventIds).toEqual(["st-a-statement"]);
      });
  });
});

describe("denials, assessments and contested", () => {
  it("given a denial with no assessment, then its status is unassessed and the incident is contested", () => {
    given(opened())
      .when(denial("denial-peskov"))
      .then((s) => {
        expect(s.denials.map((d) => [d.eventId, d.status, d.assessments])).toEqual([
          ["denial-peskov", "unassessed", []],
        ]);
        expect(s.contested).toBe(true);
      });
  });

  it("given no denial (only a statement that denies nothing formally), then it is not contested", () => {
    given(opened())
      .when(statement("st-guterres", "Antonio Guterres"))
      .then((s) => expect(s.contested).toBe(false));
  });

  it.each(["supported", "disputed", "false", "unverified"] as const)(
    "given one assessment '%s', then the denial's status is that verdict",
    (verdict) => {
      given(opened(), denial("denial-peskov"))
        .when(assessment("assess-1-denial", "denial-peskov", verdict))
        .then((s) => expect(s.denials[0]?.status).toBe(verdict));
    },
  );

  it("given two assessments, then the status is the latest one's verdict", () => {
    given(opened(), denial("denial-peskov"), assessment("assess-1-denial", "denial-peskov", "false"))
      .when(assessment("assess-2-denial", "denial-peskov", "disputed"))
      .then((s) => {
        expect(s.denials[0]?.status).toBe("disputed");
        expect(s.denials[0]?.assessments.map((a) => a.eventId)).toEqual([
          "assess-1-denial",
          "assess-2-denial",
        ]);
      });
  });

  it("given the latest assessment retracted, then the earlier verdict is the status again", () => {
    given(
      opened(),
      denial("denial-peskov"),
      assessment("assess-1-denial", "denial-peskov", "false"),
      assessment("assess-2-denial", "denial-peskov", "supported"),
    )
      .when(retraction("retract-assess-2", "assess-2-denial"))
      .then((s) => expect(s.denials[0]?.status).toBe("false"));
  });

  it("given the only assessment retracted, then the denial is unassessed again", () => {
    given(opened(), denial("denial-peskov"), assessment("assess-1-denial", "denial-peskov", "false"))
      .when(retraction("retract-assess-1", "assess-1-denial"))
      .then((s) => expect(s.denials[0]).toMatchObject({ status: "unassessed", assessments: [] }));
  });

  it("given an assessment of another event, then the denial's status does not change", () => {
    given(opened(), denial("denial-peskov"), statement("st-guterres", "Antonio Guterres"))
      .when(assessment("assess-statement", "st-guterres", "supported"))
      .then((s) => {
        expect(s.denials[0]?.status).toBe("unassessed");
        expect(s.statements.latest[0]?.assessments.map((a) => a.verdict)).toEqual(["supported"]);
      });
  });

  it("given the only denial retracted, then it is gone from denials and the incident is not contested", () => {
    given(opened(), denial("denial-peskov"))
      .when(retraction("retract-denial", "denial-peskov"))
      .then((s) => {
        expect(s.denials).toEqual([]);
        expect(s.contested).toBe(false);
        expect(s.retractedEventIds).toEqual(["denial-peskov"]);
      });
  });

  it("given one of two denials retracted, then the incident is still contested", () => {
    given(opened(), denial("denial-peskov"), denial("denial-mod", "Russian Ministry of Defence"))
      .when(retraction("retract-denial", "denial-peskov"))
      .then((s) => {
        expect(s.denials.map((d) => d.eventId)).toEqual(["denial-mod"]);
        expect(s.contested).toBe(true);
      });
  });
});

describe("retractedEventIds, version and head", () => {
  it("given retractions, then retractedEventIds lists each target once, in order", () => {
    given(opened(), statement("st-a-statement", "A"), casualties("c-report-1", "C", { killed: exact(3) }))
      .when(
        retraction("retract-c-1", "c-report-1"),
        retraction("retract-a-1", "st-a-statement"),
        retraction("retract-c-2", "c-report-1"),
      )
      .then((s) => expect(s.retractedEventIds).toEqual(["c-report-1", "st-a-statement"]));
  });

  it("given events, then version, headHash and recorded times follow the last one", () => {
    const scenario = given(opened(), statement("st-a-statement", "A"));
    scenario.when(denial("denial-peskov")).then((s, state) => {
      expect(s.version).toBe(3);
      expect(s.headHash).toBe(state.headHash);
      expect(s.headHash).not.toBe(scenario.events[1]?.hash);
      expect(s.lastRecordedAt).toBe("2022-04-08T18:00:03.000Z");
      expect(s.firstRecordedAt).toBe("2022-04-08T18:00:01.000Z");
    });
    expect(summarize(scenario.state).headHash).toBe(scenario.events[1]?.hash);
  });

  it("given no events, then the summary is empty at version 0", () => {
    expect(summarize(emptyState(INCIDENT))).toMatchObject({
      version: 0,
      title: null,
      headHash: "0".repeat(64),
    });
  });
});

describe("evolve: replays, duplicates and gaps", () => {
  const { events, state } = given(
    opened(),
    casualties("gov-report-1", "Governor", { killed: exact(50) }),
    denial("denial-peskov"),
    retraction("retract-gov-1", "gov-report-1"),
  );

  it.each([1, 2, 3, 4])("given version %i delivered again, then nothing changes", (version) => {
    const replay = events[version - 1] as StoredEvent;
    expect(evolve(state, replay)).toEqual(state);
    expect(fold(INCIDENT, [replay], state)).toEqual(state);
  });

  it("given an event from the past with other content (a replay, not a new event), then nothing changes", () => {
    const forged = { ...(events[1] as StoredEvent), data: { figures: { killed: exact(999) } } };
    expect(summarize(evolve(state, forged))).toEqual(summarize(state));
  });

  it("given a gap (version 6 onto version 4), then evolve throws", () => {
    const [, sixth] = sealAll([statement("st-5-statement", "A"), statement("st-6-statement", "B")], events);
    expect(() => evolve(state, sixth as StoredEvent)).toThrow(RangeError);
    expect(() =>
      fold(
        INCIDENT,
        events.filter((e) => e.version !== 2),
      ),
    ).toThrow(/cannot fold version 3 onto version 1/);
  });

  it("given a state, then evolve and fold leave it as it was (the fold is pure)", () => {
    let s = deepFreeze(emptyState(INCIDENT));
    // A retraction reads back the event it names: the steps are given the history before them.
    for (const next of events) s = deepFreeze(evolve(s, next, events));
    expect(s).toEqual(state);
    const halfway = fold(INCIDENT, events.slice(0, 2));
    const before = structuredClone(halfway);
    expect(fold(INCIDENT, events.slice(2), halfway, events.slice(0, 2))).toEqual(state);
    expect(halfway).toEqual(before);
  });
});

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object") {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

// ---- properties ----------------------------------------------------------------------------

const SOURCES = ["Governor", "Mayor", "Ukrainian authorities"];
const CATEGORIES = ["killed", "injured"];
const arbFigure: fc.Arbitrary<Figure> = fc.oneof(
  fc.record({
    value: fc.nat(200),
    qualifier: fc.constantFrom("exact", "at-least", "at-most", "about" as const),
  }),
  fc.tuple(fc.nat(200), fc.nat(200)).map(([a, b]) => ({ min: Math.min(a, b), max: Math.max(a, b) })),
  fc.record({ qualifier: fc.constantFrom("dozens", "hundreds" as const) }),
);
type Step =
  | { kind: "casualties"; source: number; figures: Record<string, Figure> }
  | { kind: "statement" | "denial"; source: number }
  | { kind: "assessment"; target: number; verdict: "supported" | "disputed" | "false" | "unverified" }
  | { kind: "retraction"; target: number };
const arbStep: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("casualties" as const),
      source: fc.nat(SOURCES.length - 1),
      figures: fc.dictionary(fc.constantFrom(...CATEGORIES), arbFigure, { minKeys: 1 }),
    }),
  },
  fc.record({ kind: fc.constantFrom("statement", "denial" as const), source: fc.nat(SOURCES.length - 1) }),
  fc.record({
    kind: fc.constant("assessment" as const),
    target: fc.nat(),
    verdict: fc.constantFrom("supported", "disputed", "false", "unverified" as const),
  }),
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("retraction" as const), target: fc.nat() }) },
);

/** A history that keeps the append rules: targets exist; no retraction of an opening or a retraction. */
function history(steps: readonly Step[]): Envelope[] {
  const out: Envelope[] = [opened()];
  steps.forEach((step, i) => {
    const id = `event-${String(i).padStart(3, "0")}`;
    const retractable = out.filter((e) => e.type !== "IncidentOpened" && e.type !== "ReportRetracted");
    const who = SOURCES[(step as { source: number }).source ?? 0] as string;
    if (step.kind === "casualties") out.push(casualties(id, who, step.figures));
    else if (step.kind === "statement") out.push(statement(id, who));
    else if (step.kind === "denial") out.push(denial(id, who));
    else if (step.kind === "assessment" && retractable.length > 0) {
      const target = retractable[step.target % retractable.length] as Envelope;
      out.push(assessment(id, target.eventId as string, step.verdict));
    } else if (step.kind === "retraction" && retractable.length > 0) {
      out.push(retraction(id, (retractable[step.target % retractable.length] as Envelope).eventId as string));
    }
  });
  return out;
}

/** The contract's rules read straight from the event list, with no fold and no state. */
function oracle(events: readonly StoredEvent[]) {
  const retracted = new Set(
    events.filter((e) => e.type === "ReportRetracted").map((e) => e.data.targetEventId),
  );
  const live = events.filter((e) => !retracted.has(e.eventId));
  const casualties: Record<
    string,
    { low: number | null; high: number | null; reports: number; sources: number }
  > = {};
  for (const category of CATEGORIES) {
    const all = events.filter((e) => e.type === "CasualtiesReported" && category in e.data.figures);
    if (all.length === 0) continue;
    const latest = new Map<string, Figure>();
    for (const e of live)
      if (e.type === "CasualtiesReported" && category in e.data.figures)
        latest.set(e.attributedTo?.name as string, e.data.figures[category]);
    const bounds = [...latest.values()].map(figureBounds);
    casualties[category] = {
      low: bounds.length ? Math.max(...bounds.map((b) => b.low)) : null,
      high:
        bounds.length === 0 || bounds.some((b) => b.high === null)
          ? null
          : Math.max(...bounds.map((b) => b.high as number)),
      reports: all.length,
      sources: latest.size,
    };
  }
  const denials = live
    .filter((e) => e.type === "DenialIssued")
    .map((d) => {
      const verdicts = live.filter((a) => a.type === "ClaimAssessed" && a.data.targetEventId === d.eventId);
      return {
        eventId: d.eventId,
        status: verdicts.length ? verdicts[verdicts.length - 1]?.data.verdict : "unassessed",
      };
    });
  return {
    casualties,
    statements: live.filter((e) => e.type === "StatementMade").length,
    denials,
    contested: denials.length > 0,
    retractedEventIds: [...retracted],
  };
}

describe("the fold, for any history that keeps the append rules", () => {
  const histories = fc.array(arbStep, { maxLength: 24 }).map((steps) => sealAll(history(steps)));

  it("agrees with the contract's rules read straight from the events", () => {
    fc.assert(
      fc.property(histories, (events) => {
        const s = summarize(fold(INCIDENT, events));
        const expected = oracle(events);
        expect(
          Object.fromEntries(
            Object.entries(s.casualties).map(([c, v]) => [
              c,
              { low: v.low, high: v.high, reports: v.reports, sources: v.bySource.length },
            ]),
          ),
        ).toEqual(expected.casualties);
        for (const v of Object.values(s.casualties))
          if (v.high !== null) expect(v.high).toBeGreaterThanOrEqual(v.low ?? 0);
        expect(s.statements.count).toBe(expected.statements);
        expect(s.denials.map((d) => ({ eventId: d.eventId, status: d.status }))).toEqual(expected.denials);
        expect(s.contested).toBe(expected.contested);
        expect(s.retractedEventIds).toEqual(expected.retractedEventIds);
        expect(s.version).toBe(events.length);
      }),
      { numRuns: 300 },
    );
  });

  it("gives the same state when every event is delivered twice or more, duplicates interleaved", () => {
    const deliveries = fc.tuple(histories, fc.array(fc.nat(), { maxLength: 60 })).map(([events, picks]) => {
      // After each event, redeliver some events already delivered (that one included).
      const stream: StoredEvent[] = [];
      let p = 0;
      events.forEach((event, i) => {
        stream.push(event, event);
        while (p < picks.length && (picks[p] as number) % 3 !== 0) {
          stream.push(events[(picks[p] as number) % (i + 1)] as StoredEvent);
          p += 1;
        }
        p += 1;
      });
      return { events, stream };
    });
    fc.assert(
      fc.property(deliveries, ({ events, stream }) => {
        const once: IncidentState = fold(INCIDENT, events);
        expect(fold(INCIDENT, stream)).toEqual(once);
        expect(fold(INCIDENT, events, once)).toEqual(once);
      }),
      { numRuns: 200 },
    );
  });
});
