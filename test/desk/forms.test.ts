import { describe, expect, it } from "vitest";
import { EDITOR_TYPES, EVENT_TYPES, LOCATION_PRECISIONS, TIME_PRECISIONS } from "../../events/schemas.js";
import { parseAppendBody } from "../../events/validate.js";
import type { FormState } from "../../functions/http/desk/form-kit.js";
import { fieldId } from "../../functions/http/desk/form-kit.js";
import { fieldMessages, nearestField } from "../../functions/http/desk/form-read.js";
import type { DeskForm, FormContext } from "../../functions/http/desk/forms/desk-form.js";
import { DESK_FORMS } from "../../functions/http/desk/forms/registry.js";

/**
 * Every form module keeps the desk's promises by construction: each field it lists is on the
 * page under the id the error summary links to, each control it renders is one it lists (so a
 * problem path finds its field), and an empty form reads into an event the API refuses with
 * problems that all land on fields.
 */

const context: FormContext = {
  incidentId: "an-incident",
  events: [
    {
      incidentId: "an-incident",
      eventId: "target-event-1",
      version: 2,
      type: "DenialIssued",
      recordedAt: "2026-01-01T00:00:00.000Z",
      recordedBy: "x",
      prevHash: "0".repeat(64),
      hash: "1".repeat(64),
      source: { publisher: "TASS" },
      attributedTo: { name: "Ministry" },
      data: { claim: "responsibility" },
    } as never,
  ],
};
const state = (values: Record<string, string> = {}): FormState => ({
  values: new Map(Object.entries(values)),
  errors: new Map(),
  suggestions: { speakers: [], publishers: [] },
});
const render = async (form: DeskForm, values?: Record<string, string>) =>
  String(await form.Fields({ form: state(values), context }));

describe("the desk's forms", () => {
  it('cover every event type, each behind the role the API asks for it (CONTRACT.md "Roles")', () => {
    expect(DESK_FORMS.map((f) => f.type).sort()).toEqual([...EVENT_TYPES].sort());
    for (const form of DESK_FORMS)
      expect(form.role, form.type).toBe(EDITOR_TYPES.includes(form.type as never) ? "editor" : "writer");
  });
});

describe.each([...DESK_FORMS].map((f) => [f.type, f] as const))("the %s form", (_type, form) => {
  it("renders every field it lists, under the id the error summary links to", async () => {
    const html = await render(form);
    for (const field of form.fields(new Map())) expect(html, field).toContain(`id="${fieldId(field)}"`);
  });

  it("lists every control it renders, so that each problem finds its field", async () => {
    const html = await render(form);
    const names = new Set([...html.matchAll(/name="([^"]+)"/g)].map((m) => m[1]));
    const listed = new Set([...form.fields(new Map()), "rows"]);
    for (const name of names) expect(listed.has(name as string), name).toBe(true);
    for (const field of form.fields(new Map())) expect(form.label(field), field).not.toBe("");
  });

  if (DESK_FORMS.includes(form))
    it("reads an empty form into an event the API refuses, every problem on a field", () => {
      const values = new Map<string, string>();
      const read = form.read(values, context);
      const parsed = parseAppendBody(read.body);
      expect(parsed.ok).toBe(false);
      const fields = new Set(form.fields(values));
      for (const problem of parsed.ok ? [] : parsed.errors) {
        const field =
          form.fieldFor?.(problem.path, values) ??
          [...fields].find((f) => f === problem.path || f.startsWith(`${problem.path}.`));
        expect(field, problem.path).toBeTruthy();
      }
    });
});

describe("the casualty form's figures", () => {
  const form = DESK_FORMS.find((f) => f.type === "CasualtiesReported") as DeskForm;
  it.each([
    ["exact", { value: "12" }, { value: 12, qualifier: "exact" }],
    ["at-least", { value: "50" }, { value: 50, qualifier: "at-least" }],
    ["at-most", { value: "4,000" }, { value: 4000, qualifier: "at-most" }],
    ["about", { value: "4 000" }, { value: 4000, qualifier: "about" }],
    ["range", { min: "15", max: "20" }, { min: 15, max: 20 }],
    ["dozens", {}, { qualifier: "dozens" }],
    ["hundreds", {}, { qualifier: "hundreds" }],
  ] as const)("reads %s, with the words as reported, into the contract's Figure", (kind, parts, figure) => {
    const values = new Map<string, string>([
      ["figures[0].category", "other"],
      ["figures[0].other", "hospitalised"],
      ["figures[0].form", kind],
      ["figures[0].text", "as the source put it"],
      ["source.publisher", "AP"],
      ["attributedTo.name", "Police"],
      ...Object.entries(parts).map(([k, v]) => [`figures[0].${k}`, v] as [string, string]),
    ]);
    const read = form.read(values, context);
    expect(read.errors.size).toBe(0);
    const parsed = parseAppendBody(read.body);
    expect(parsed.ok && parsed.value[0]?.data).toEqual({
      figures: { hospitalised: { ...figure, text: "as the source put it" } },
    });
  });
});

describe("the casualty form's numbers that the chosen form takes none of", () => {
  const form = DESK_FORMS.find((f) => f.type === "CasualtiesReported") as DeskForm;
  it.each([
    [
      "range",
      { value: "20" },
      {
        "figures[0].value": "is for one number: for between two numbers give From and To",
        "figures[0].min": "is required for between two numbers",
        "figures[0].max": "is required for between two numbers",
      },
    ],
    ["range", { min: "15" }, { "figures[0].max": "is required for between two numbers" }],
    [
      "dozens",
      { value: "40" },
      {
        "figures[0].value": 'must be empty for dozens (no number given): choose "About a number" to keep it',
      },
    ],
    ["exact", { value: "12", max: "20" }, { "figures[0].max": "is for between two numbers only" }],
  ] as const)("refuses %s with %o, naming the field, never dropping the number", (kind, parts, errors) => {
    const values = new Map<string, string>([
      ["figures[0].category", "injured"],
      ["figures[0].form", kind],
      ["source.publisher", "AP"],
      ["attributedTo.name", "Police"],
      ...Object.entries(parts).map(([k, v]) => [`figures[0].${k}`, v] as [string, string]),
    ]);
    expect(Object.fromEntries(form.read(values, context).errors)).toEqual(errors);
  });
});

describe("the opening form's coding fields", () => {
  const form = DESK_FORMS.find((f) => f.type === "IncidentOpened") as DeskForm;
  it("reads how exactly the date and the place are known, and when it ended, into the event", () => {
    const values = new Map<string, string>([
      ["incidentId", "coded-opening"],
      ["data.title", "Shelling of a market"],
      ["data.kind", "shelling"],
      ["data.location.name", "Central market"],
      ["data.location.country", "UA"],
      ["data.location.precision", "near"],
      ["data.occurredOn", "2022-04-08"],
      ["data.occurredUntil", "2022-04-10"],
      ["data.timePrecision", "days"],
      ["source.publisher", "AP"],
    ]);
    const parsed = parseAppendBody(form.read(values, context).body);
    expect(parsed.ok && parsed.value[0]?.data).toMatchObject({
      location: { name: "Central market", country: "UA", precision: "near" },
      occurredUntil: "2022-04-10",
      timePrecision: "days",
    });
  });

  it("offers every precision the API takes, and an empty choice for none given", async () => {
    const html = await render(form);
    for (const [name, values] of [
      ["data.timePrecision", TIME_PRECISIONS],
      ["data.location.precision", LOCATION_PRECISIONS],
    ] as const) {
      const select = new RegExp(`<select[^>]*name="${name.replace(/\./g, "\\.")}"[^>]*>(.*?)</select>`, "s");
      const options = [...(select.exec(html)?.[1] ?? "").matchAll(/<option value="([^"]*)"/g)].map(
        (m) => m[1],
      );
      expect(options, name).toEqual(["", ...values]);
    }
  });
});

describe("the casualties form's categories", () => {
  it("names each well-known category as a heading does, and the other category's rule in words", async () => {
    const form = DESK_FORMS.find((f) => f.type === "CasualtiesReported") as DeskForm;
    const html = await render(form);
    const select = /<select[^>]*name="figures\[0\]\.category"[^>]*>(.*?)<\/select>/s.exec(html)?.[1] ?? "";
    const labels = [...select.matchAll(/<option value="([^"]+)"[^>]*>([^<]*)</g)].map((m) => [m[1], m[2]]);
    expect(labels).toContainEqual(["killed", "Killed"]);
    expect(labels).toContainEqual(["childrenKilled", "Children killed"]);
    expect(html).not.toContain("camelCase");
  });
});

describe("the revision form's place", () => {
  const form = DESK_FORMS.find((f) => f.type === "IncidentRevised") as DeskForm;
  const place = { name: "Kramatorsk railway station", country: "UA", lat: 48.7305, lon: 37.5867 };
  const on = (precision?: string): FormContext => ({
    ...context,
    summary: { location: { ...place, ...(precision ? { precision } : {}) } } as never,
  });
  const revised = (fields: Record<string, string>, at: FormContext) => {
    const values = new Map(
      Object.entries({ "source.publisher": "Editors", "attributedTo.name": "Editors", ...fields }),
    );
    const parsed = parseAppendBody(form.read(values, at).body);
    return parsed.ok ? parsed.value[0]?.data : parsed.errors;
  };

  const shownPlace = {
    "data.location.name": "Kramatorsk railway station",
    "data.location.country": "UA",
    "data.location.lat": "48.7305",
    "data.location.lon": "37.5867",
  };

  it("given a place known near a town, then the form opens with the place and that precision", () => {
    expect(form.initial?.(on("near"))).toEqual({ ...shownPlace, "data.location.precision": "near" });
    expect(form.initial?.(on())).toEqual(shownPlace);
  });

  it("given a part of the place changed and the rest as shown, then the place as the fields read, with its precision", () => {
    const at = on("near");
    const shown = form.initial?.(at) ?? {};
    expect(revised({ ...shown, "data.location.name": "Station forecourt" }, at)).toEqual({
      location: { ...place, name: "Station forecourt", precision: "near" },
    });
  });

  it("given the place and its precision as shown, then the place is not revised", () => {
    const at = on("near");
    expect(revised({ ...form.initial?.(at), "data.timePrecision": "day" }, at)).toEqual({
      timePrecision: "day",
    });
  });

  it("given the date's coding withdrawn, then the revision gives timePrecision null", () => {
    const at = on("near");
    expect(revised({ ...form.initial?.(at), "data.timePrecision": "not-coded" }, at)).toEqual({
      timePrecision: null,
    });
  });

  it("given only another precision, then the current place is revised with it, and with 'not given' without one", () => {
    const at = on("near");
    const shown = form.initial?.(at) ?? {};
    expect(revised({ ...shown, "data.location.precision": "exact" }, at)).toEqual({
      location: { ...place, precision: "exact" },
    });
    expect(revised({ ...shown, "data.location.precision": "" }, at)).toEqual({ location: place });
    expect(revised({ ...form.initial?.(on()), "data.location.precision": "adm2" }, on())).toEqual({
      location: { ...place, precision: "adm2" },
    });
  });

  it("given the place's name emptied, then a place is revised, and its missing name is named", () => {
    const at = on("near");
    const refused = revised({ ...form.initial?.(at), "data.location.name": "" }, at);
    expect(refused).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: "data.location.name" })]),
    );
  });
});

describe("the victims form sent with no one filled in", () => {
  const form = DESK_FORMS.find((f) => f.type === "VictimsRecorded") as DeskForm;
  /** The messages the desk shows for a form, as its routes make them (desk-routes.tsx). */
  const messages = (values: Map<string, string>) => {
    const read = form.read(values, context);
    const parsed = parseAppendBody(read.body);
    const fields = new Set(form.fields(values));
    const fieldFor = (path: string) => form.fieldFor?.(path, values) ?? nearestField(path, fields);
    return fieldMessages(parsed.ok ? [] : parsed.errors, read.errors, fieldFor, form.label).fields;
  };
  const filledIn = { "source.publisher": "OHCHR", "attributedTo.name": "OHCHR" };

  it("says at least one person must be filled in, on the people, not on the first person's name", async () => {
    const shown = messages(new Map(Object.entries(filledIn)));
    const [field, message] = [...shown].find(([, m]) => /at least one person/.test(m)) ?? [];
    expect(message).toBe(
      "Victims must include at least one person: fill in a name, an age or another detail",
    );
    expect(field).not.toMatch(/^victims\[/);
    expect([...shown.values()].join("\n")).not.toMatch(/1–500|Person 1: name/);
    const html = String(
      await form.Fields({
        form: { ...state(), errors: shown },
        context,
      }),
    );
    expect(html).toContain(`id="${fieldId(field as string)}"`);
    expect(html).toContain(`id="${fieldId(field as string)}-error"`);
  });

  it("says nothing of it once one person has a detail", () => {
    const shown = messages(new Map(Object.entries({ ...filledIn, "victims[0].status": "civilian" })));
    expect(shown.size).toBe(0);
  });
});

describe("the redaction form's targets", () => {
  const event = (eventId: string, type: string, attributedTo: Record<string, unknown>, data: unknown) =>
    ({
      incidentId: "an-incident",
      eventId,
      version: 2,
      type,
      recordedAt: "2026-01-01T00:00:00.000Z",
      recordedBy: "x",
      prevHash: "0".repeat(64),
      hash: "1".repeat(64),
      source: { publisher: "AP" },
      attributedTo,
      data,
    }) as never;
  const sealed = { $sealed: `sha-256:${"a".repeat(43)}` };
  const withEvents: FormContext = {
    incidentId: "an-incident",
    events: [
      event(
        "private-said",
        "StatementMade",
        { name: sealed, kind: "private", ref: "witness-A" },
        {
          quote: "q",
          stance: "neutral",
        },
      ),
      event("public-said", "StatementMade", { name: "Ministry" }, { quote: "q", stance: "neutral" }),
      event("victims-list", "VictimsRecorded", { name: "Police" }, { victims: [{ name: sealed }] }),
    ],
  };
  const form = DESK_FORMS.find((f) => f.type === "RedactionApplied") as DeskForm;

  it("given a private person's statement and a victims list, then both are offered, and an event with nothing sealed is not", async () => {
    const html = String(await form.Fields({ form: state(), context: withEvents }));
    expect(html).toContain('value="private-said"');
    expect(html).toContain('value="victims-list"');
    expect(html).not.toContain('value="public-said"');
    expect(form.offered?.(withEvents)).toBe(true);
  });

  describe("its fields, ticked rather than typed", () => {
    const versioned: FormContext = {
      incidentId: "an-incident",
      events: withEvents.events.map((e, i) => ({ ...e, version: i + 2 })),
    };
    const read = (values: Record<string, string>) => form.read(new Map(Object.entries(values)), versioned);

    it("given events with sealed values, then each one's fields to tick, named as a person reads them", async () => {
      const html = String(await form.Fields({ form: state(), context: versioned }));
      expect(html).toContain('name="pointer.2.0" id="f-pointers-v2-0" value="/attributedTo/name"');
      expect(html).toContain(">the private person&#39;s name</label>");
      expect(html).toContain('name="pointer.4.0" id="f-pointers-v4-0" value="/data/victims/0/name"');
      expect(html).toContain(">Person 1: name</label>");
    });

    it("given fields ticked under the chosen event and one typed, then all of them, each once", () => {
      const { body, errors } = read({
        "data.targetEventId": "victims-list",
        "pointer.4.0": "/data/victims/0/name",
        "data.pointers": "/data/victims/0/name\n/data/victims/0/age",
      });
      expect((body.data as { pointers: string[] }).pointers).toEqual([
        "/data/victims/0/name",
        "/data/victims/0/age",
      ]);
      expect(errors.size).toBe(0);
    });

    it("given a field ticked under another event than the chosen one, then that is the field's error", () => {
      const { errors } = read({ "data.targetEventId": "victims-list", "pointer.2.0": "/attributedTo/name" });
      expect(errors.get("data.pointers")).toMatch(/another event than the one chosen/);
    });
  });
});
