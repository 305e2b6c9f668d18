import { describe, expect, it } from "vitest";
import { checkAppend, fieldPath, needsTargets } from "./append-rules.js";
import type { Envelope } from "./schemas.js";
import {
  assessment,
  by,
  casualties,
  denial,
  exact,
  given,
  opened,
  retraction,
  statement,
} from "./test-kit.js";

const toll = casualties("kramatorsk-governor-toll", "Pavlo Kyrylenko", {
  killed: exact(50),
  childrenKilled: exact(5),
});
const peskov = denial("kramatorsk-peskov-denial", "Dmitry Peskov");
const guterres = statement("kramatorsk-guterres", "Antonio Guterres");
const kramatorsk = given(opened(), toll, peskov, guterres);

describe("IncidentOpened: version 1 of its stream, and only there", () => {
  it("given no incident, when it is opened, then the append is allowed", () => {
    given()
      .whenAppending([opened()])
      .then((breach) => expect(breach).toBeNull());
  });

  it("given no incident, when it is opened with its first reports in one batch, then the append is allowed", () => {
    given()
      .whenAppending([
        opened(),
        toll,
        peskov,
        assessment("experts-on-peskov", "kramatorsk-peskov-denial", "false"),
      ])
      .then((breach) => expect(breach).toBeNull());
  });

  it("given an incident, when it is opened again, then the incident exists", () => {
    kramatorsk.whenAppending([opened("kramatorsk-opened-again")]).then((breach) => {
      expect(breach).toMatchObject({ kind: "incident-exists" });
      expect(breach?.detail).toContain("version 5");
    });
  });

  it("given an incident, when a batch opens it again after a report, then the incident exists", () => {
    kramatorsk
      .whenAppending([statement("st-later-statement", "A"), opened("kramatorsk-opened-again")])
      .then((breach) =>
        expect(breach).toMatchObject({
          kind: "incident-exists",
          detail: expect.stringContaining("version 6"),
        }),
      );
  });

  it("given no incident, when a batch opens it twice, then the second opening would be version 2: refused", () => {
    given()
      .whenAppending([opened(), opened("kramatorsk-opened-twice")])
      .then((breach) =>
        expect(breach).toMatchObject({
          kind: "incident-exists",
          detail: expect.stringContaining("version 2"),
        }),
      );
  });
});

describe("every other type needs an existing incident", () => {
  it.each([
    ["CasualtiesReported", toll],
    ["StatementMade", guterres],
    ["DenialIssued", peskov],
    ["ClaimAssessed", assessment("experts-on-peskov", "kramatorsk-peskov-denial", "false")],
    ["ReportRetracted", retraction("retract-the-toll", "kramatorsk-governor-toll")],
  ] as [string, Envelope][])(
    "given no incident, when a %s comes first, then the incident is missing",
    (_, envelope) => {
      given()
        .whenAppending([envelope])
        .then((breach) => expect(breach).toMatchObject({ kind: "incident-missing" }));
    },
  );

  it("given no incident, when a batch opens it second, then the incident is missing (the opening must be version 1)", () => {
    given()
      .whenAppending([toll, opened()])
      .then((breach) => expect(breach).toMatchObject({ kind: "incident-missing" }));
  });

  it("given an incident, when any other type is appended, then it is allowed", () => {
    kramatorsk
      .whenAppending([
        casualties("later-toll-report", "Ukrainian authorities", { killed: exact(52) }),
        statement("later-statement", "Ursula von der Leyen"),
        denial("later-denial-mod", "Russian Ministry of Defence"),
      ])
      .then((breach) => expect(breach).toBeNull());
  });
});

describe("targetEventId must name a fitting event of this incident", () => {
  it.each([
    ["a denial", assessment("experts-on-peskov", "kramatorsk-peskov-denial", "false")],
    ["a statement", assessment("fact-check-guterres", "kramatorsk-guterres", "supported")],
    ["a casualty report", assessment("fact-check-toll", "kramatorsk-governor-toll", "unverified")],
    ["the opening", assessment("fact-check-opening", "kramatorsk-opened", "disputed")],
  ])("given an incident, when %s is assessed, then it is allowed", (_, envelope) => {
    kramatorsk.whenAppending([envelope]).then((breach) => expect(breach).toBeNull());
  });

  it.each([
    ["a casualty report", "kramatorsk-governor-toll"],
    ["a statement", "kramatorsk-guterres"],
    ["a denial", "kramatorsk-peskov-denial"],
  ])("given an incident, when %s is retracted, then it is allowed", (_, target) => {
    kramatorsk
      .whenAppending([retraction("retract-something", target)])
      .then((breach) => expect(breach).toBeNull());
  });

  it("given an assessment in the incident, when it is retracted, then it is allowed", () => {
    given(opened(), peskov, assessment("experts-on-peskov", "kramatorsk-peskov-denial", "false"))
      .whenAppending([retraction("retract-assessment", "experts-on-peskov")])
      .then((breach) => expect(breach).toBeNull());
  });

  it.each([
    ["ClaimAssessed", assessment("experts-on-nothing", "not-an-event-here", "false")],
    ["ReportRetracted", retraction("retract-nothing", "not-an-event-here")],
  ])(
    "given an incident, when a %s names an unknown event, then data.targetEventId is named",
    (_, envelope) => {
      kramatorsk.whenAppending([envelope]).then((breach) =>
        expect(breach).toEqual({
          kind: "bad-target",
          detail: "a targetEventId does not name an event of this incident",
          errors: [
            { path: "data.targetEventId", message: "not-an-event-here is not an event of this incident" },
          ],
        }),
      );
    },
  );

  it("given an incident, when a retraction names the opening, then it is refused", () => {
    kramatorsk.whenAppending([retraction("retract-opening", "kramatorsk-opened")]).then((breach) =>
      expect(breach).toMatchObject({
        kind: "bad-target",
        detail: "a targetEventId names an event that cannot be retracted",
        errors: [{ path: "data.targetEventId", message: "an IncidentOpened event cannot be retracted" }],
      }),
    );
  });

  it("given an editor's judgement or a redaction, when a retraction names it, then it is refused, saying what to do instead", () => {
    const grade = {
      eventId: "kramatorsk-graded",
      type: "IncidentGraded",
      source: { publisher: "incident-ledger" },
      attributedTo: by("Archive editors"),
      data: { scale: "ledger", grade: "confirmed" },
    } as Envelope;
    const redaction: Envelope = {
      eventId: "kramatorsk-redaction",
      type: "RedactionApplied",
      source: { publisher: "incident-ledger" },
      attributedTo: by("Archive editors"),
      data: {
        targetEventId: "kramatorsk-guterres",
        pointers: ["/attributedTo/name"],
        effect: "erased",
        reason: "safety-risk",
      },
    } as Envelope;
    given(opened(), guterres, grade, redaction)
      .whenAppending([
        retraction("retract-the-grade", "kramatorsk-graded"),
        retraction("retract-the-redaction", "kramatorsk-redaction"),
      ])
      .then((breach) =>
        expect(breach).toMatchObject({
          kind: "bad-target",
          errors: [
            {
              path: "events[0].data.targetEventId",
              message:
                "an IncidentGraded event cannot be retracted: an editor supersedes it with a newer one",
            },
            {
              path: "events[1].data.targetEventId",
              message:
                "a RedactionApplied event cannot be retracted: what it withheld or erased stays so; to withhold or erase more, an editor records a further RedactionApplied",
            },
          ],
        }),
      );
  });

  it("given a retraction in the incident, when another retraction names it, then it is refused", () => {
    given(opened(), toll, retraction("retract-the-toll", "kramatorsk-governor-toll"))
      .whenAppending([retraction("un-retract-the-toll", "retract-the-toll")])
      .then((breach) =>
        expect(breach).toMatchObject({
          kind: "bad-target",
          errors: [{ path: "data.targetEventId", message: "a ReportRetracted event cannot be retracted" }],
        }),
      );
  });

  it("given an incident, when a batch retracts a report made earlier in the same batch, then it is allowed", () => {
    kramatorsk
      .whenAppending([
        statement("st-in-batch-one", "A"),
        denial("denial-in-batch", "B"),
        assessment("assess-in-batch", "denial-in-batch", "disputed"),
        retraction("retract-in-batch", "st-in-batch-one"),
      ])
      .then((breach) => expect(breach).toBeNull());
  });

  it("given no incident, when a batch opens it and assesses a denial it made, then it is allowed", () => {
    given()
      .whenAppending([opened(), peskov, assessment("experts-on-peskov", "kramatorsk-peskov-denial", "false")])
      .then((breach) => expect(breach).toBeNull());
  });

  it("given a batch, when a target comes later in the batch, then it is refused at its index", () => {
    kramatorsk
      .whenAppending([retraction("retract-too-early", "st-made-later"), statement("st-made-later", "A")])
      .then((breach) =>
        expect(breach).toMatchObject({
          kind: "bad-target",
          errors: [{ path: "events[0].data.targetEventId" }],
        }),
      );
  });

  it("given a batch, when a retraction names itself, then it is refused", () => {
    kramatorsk
      .whenAppending([retraction("retract-myself", "retract-myself")], false)
      .then((breach) => expect(breach).toMatchObject({ kind: "bad-target" }));
  });

  it("given a batch, when it retracts a retraction made earlier in the same batch or its own opening, then both are named", () => {
    given()
      .whenAppending([
        opened(),
        toll,
        retraction("retract-the-toll", "kramatorsk-governor-toll"),
        retraction("un-retract-the-toll", "retract-the-toll"),
        retraction("retract-opening", "kramatorsk-opened"),
      ])
      .then((breach) =>
        expect(breach).toMatchObject({
          kind: "bad-target",
          errors: [{ path: "events[3].data.targetEventId" }, { path: "events[4].data.targetEventId" }],
        }),
      );
  });

  it("given an event of another incident, when it is named, then it is not an event of this incident", () => {
    const bucha = given(opened("bucha-grave-opened"), denial("bucha-russia-staged-denial", "Russia"));
    kramatorsk
      .whenAppending([assessment("ap-on-bucha-denial", "bucha-russia-staged-denial", "false")])
      .then((breach) => expect(breach).toMatchObject({ kind: "bad-target" }));
    bucha
      .whenAppending([assessment("ap-on-bucha-denial", "bucha-russia-staged-denial", "false")])
      .then((breach) => expect(breach).toBeNull());
  });
});

describe("helpers", () => {
  it("needsTargets is true exactly when a batch holds an assessment or a retraction", () => {
    expect(needsTargets([opened(), toll, peskov, guterres])).toBe(false);
    expect(needsTargets([toll, assessment("experts-on-peskov", "kramatorsk-peskov-denial", "false")])).toBe(
      true,
    );
    expect(needsTargets([retraction("retract-the-toll", "kramatorsk-governor-toll")])).toBe(true);
  });

  it("fieldPath prefixes the index only in a batch", () => {
    expect(fieldPath(false, 0, "data.targetEventId")).toBe("data.targetEventId");
    expect(fieldPath(true, 2, "data.targetEventId")).toBe("events[2].data.targetEventId");
  });

  it("given a current version with no known events passed, then a target cannot be found", () => {
    expect(checkAppend(4, [retraction("retract-the-toll", "kramatorsk-governor-toll")], false)).toMatchObject(
      {
        kind: "bad-target",
      },
    );
  });
});
