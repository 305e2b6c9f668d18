import type { Context } from "hono";
import { KIND_SLUG_PATTERN, KIND_SLUG_RULE } from "../../../events/schemas.js";
import type { ListFilters } from "../pages/incident-list-page.js";
import { GRADE_HINT, gradeOf } from "../params.js";

/** A form leaves empty fields in the query: those mean "no filter", not an error. */
export function pageParam(c: Context, name: string): string | undefined {
  const raw = c.req.query(name)?.trim();
  return raw ? raw : undefined;
}

/**
 * The list's own filters as the pages that list incidents read them (the dashboard, the map):
 * kind, country, contested and grade, each bad one a message for its field (a person is
 * reading), and the values as given, to put back in the form.
 */
export function readPageFilters(c: Context): {
  filters: ListFilters;
  values: Record<string, string>;
  errors: Record<string, string>;
} {
  const values: Record<string, string> = {};
  const errors: Record<string, string> = {};
  const filters: ListFilters = {};
  const kind = pageParam(c, "kind");
  if (kind !== undefined) {
    values.kind = kind;
    if (KIND_SLUG_PATTERN.test(kind)) filters.kind = kind;
    else errors.kind = `Kind ${KIND_SLUG_RULE}.`;
  }
  const country = pageParam(c, "country");
  if (country !== undefined) {
    values.country = country;
    if (/^[A-Za-z]{2}$/.test(country)) filters.country = country.toUpperCase();
    else errors.country = "Country must be a two-letter ISO 3166 code such as UA.";
  }
  const contested = pageParam(c, "contested");
  if (contested !== undefined) {
    values.contested = contested;
    if (contested === "true" || contested === "false") filters.contested = contested === "true";
    else errors.contested = "Contested must be any, contested only, or not contested.";
  }
  const grade = pageParam(c, "grade");
  if (grade !== undefined) {
    values.grade = grade;
    const known = gradeOf(grade);
    if (known) filters.grade = known;
    else errors.grade = GRADE_HINT;
  }
  return { filters, values, errors };
}
