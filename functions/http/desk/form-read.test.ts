import { describe, expect, it } from "vitest";
import { fieldMessages, inFormWords, sentence } from "./form-read.js";

const FIELDS: Record<string, string> = {
  "data.occurredOn": "Day it happened",
  "data.occurredAt": "Time it happened",
  "data.title": "Title",
  "data.location.country": "Country",
  "data.location.precision": "How exactly the place is known",
  "source.publisher": "Publisher",
};
const fieldFor = (path: string) => {
  if (Object.hasOwn(FIELDS, path)) return path;
  // As the desk's nearest field does: a missing object is named by its first field.
  return Object.keys(FIELDS).find((f) => f.startsWith(`${path}.`)) ?? null;
};
const label = (field: string) => FIELDS[field] ?? field;

describe("a refusal in the form's own words", () => {
  it("given a predicate, then it goes on from the label; given anything else, then after a colon", () => {
    expect(sentence("Publisher", "is required")).toBe("Publisher is required");
    expect(sentence("Day it happened", "give occurredAt or occurredOn, not both")).toBe(
      "Day it happened: give occurredAt or occurredOn, not both",
    );
    expect(sentence("Figure 1: category", "at least one figure is required")).toBe(
      "Figure 1: category: at least one figure is required",
    );
  });

  it("given the API's field names in a message, then the labels of the form's fields, quoted", () => {
    const { fields } = fieldMessages(
      [{ path: "data.occurredAt", message: "give occurredAt or occurredOn, not both" }],
      new Map(),
      fieldFor,
      label,
    );
    expect(fields.get("data.occurredAt")).toBe(
      "Time it happened: give “Time it happened” or “Day it happened”, not both",
    );
  });

  it("given a word that is only the start of a field's path, then the word stays", () => {
    const { general } = fieldMessages(
      [{ path: "links", message: "the source itself names no data" }],
      new Map(),
      () => null,
      label,
    );
    expect(general).toEqual(["links: the source itself names no data"]);
    const { fields } = fieldMessages(
      [{ path: "data.title", message: "names the source of the data" }],
      new Map(),
      fieldFor,
      label,
    );
    expect(fields.get("data.title")).toBe("Title names the source of the data");
  });
});

describe("a choice's values in a refusal", () => {
  it("given a value of the choice that is also a field's name, then the value stays as the API wrote it", () => {
    const { fields } = fieldMessages(
      [
        {
          path: "data.location.precision",
          message: "must be one of exact, near, adm2, adm1, subnational, country, water",
        },
      ],
      new Map(),
      fieldFor,
      label,
    );
    expect(fields.get("data.location.precision")).toBe(
      "How exactly the place is known must be one of exact, near, adm2, adm1, subnational, country, water",
    );
  });

  it("given field names before a choice's values, then the names are labels and the values stay", () => {
    expect(
      inFormWords("with title must be one of title, country", "data.location.precision", fieldFor, label),
    ).toBe("with “Title” must be one of title, country");
    // A list of fields that is not a choice's values is still a list of labels.
    expect(inFormWords("give one of occurredAt, country", "data.location.precision", fieldFor, label)).toBe(
      "give one of “Time it happened”, “Country”",
    );
  });
});
