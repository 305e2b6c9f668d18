import type { FC } from "hono/jsx";
import type { StoredEvent } from "../../../../events/stored-event.js";
import type { Summary } from "../../../../events/summarize.js";
import type { Role } from "../../auth.js";
import type { FormState, FormValues } from "../form-kit.js";
import type { ReadForm } from "../form-read.js";

/** What a form on an incident knows of it: its events to pick a target from, newest first. */
export interface FormContext {
  incidentId: string | null;
  events: readonly StoredEvent[];
  /** `?target=` from a link beside an event ("assess this denial"). */
  target?: string;
  /** The incident's current summary: its details as revised, whatever the events above reach back to. */
  summary?: Summary | null;
  /**
   * The sealed values this reader may see, by event id and JSON Pointer (`openedKey`), on a form
   * that names people (`namesPeople`): public ones, and restricted ones for a restricted-reader.
   */
  opened?: ReadonlyMap<string, unknown>;
}

/** The key of a sealed value in `FormContext.opened`. */
export const openedKey = (eventId: string, pointer: string) => `${eventId}${pointer}`;

/**
 * One form of the desk: a small module registered in `DESK_FORMS` (registry.ts). A form for a
 * new event type names its type, the role it needs, its fields (named by their place in the
 * event) and how to read them into the event; the desk does the rest — session, anti-forgery,
 * the append through the API's own route, errors, post/redirect/get.
 */
export interface DeskForm {
  /** The path segment: `/desk/incidents/{id}/{slug}`, or `/desk/new` for the opening. */
  slug: string;
  /** The event type it records (the append's `type`). */
  type: string;
  /** The page's heading and the link's text. */
  title: string;
  /** One line under the link: what the form is for. */
  blurb: string;
  role: Role;
  /** `new`: opens an incident (`/desk/new`); `incident`: adds to one. */
  where: "new" | "incident";
  /** Every field the form posts, in page order (the error summary follows it). */
  fields(values: FormValues): readonly string[];
  /** A field's label, for messages that name it. */
  label(field: string): string;
  Fields: FC<{ form: FormState; context: FormContext }>;
  /** The event from the form, on the incident as it stands. */
  read(values: FormValues, context: FormContext): ReadForm;
  /** A problem path (`data.figures.killed.value`) → the field holding it; default: the nearest field. */
  fieldFor?(path: string, values: FormValues): string | null;
  /** The form's first values (none by default); e.g. the target picked from a link. */
  initial?(context: FormContext): Record<string, string>;
  /** A form of rows (figures, people): its button that adds one, storing nothing. */
  addRow?: string;
  /**
   * A form with a file (evidence): the name of its file field. It is posted as
   * `multipart/form-data`, its bytes go through the API's `POST /evidence` first, and it is
   * offered only where this deployment's desk holds evidence.
   */
  upload?: string;
  /** Whether the form is offered on this incident (e.g. a target to pick exists). */
  offered?(context: FormContext): boolean;
  /**
   * The form picks people by their entries (a victim, a private speaker): the sealed values its
   * reader may see are shown beside them, as on the incident page, so the right person is chosen.
   */
  namesPeople?: true;
}

/** Labels of the parts every event form shares. */
export const COMMON_LABELS: Record<string, string> = {
  "source.publisher": "Publisher",
  "source.url": "Web address",
  "source.title": "Headline or title",
  "source.publishedAt": "Published on",
  "attributedTo.name": "Name of who said it",
  "attributedTo.role": "Role or title",
  "attributedTo.side": "Side",
  "attributedTo.kind": "Who they are",
  "attributedTo.ref": "Pseudonym",
  occurredAt: "When it was said",
  eventId: "Form",
};

export const SOURCE_FIELDS = ["source.publisher", "source.url", "source.title", "source.publishedAt"];
export const ATTRIBUTION_FIELDS = [
  "attributedTo.name",
  "attributedTo.role",
  "attributedTo.side",
  "attributedTo.kind",
  "attributedTo.ref",
];

export const labelFrom =
  (own: Record<string, string>) =>
  (field: string): string =>
    (Object.hasOwn(own, field) ? own[field] : undefined) ??
    (Object.hasOwn(COMMON_LABELS, field) ? COMMON_LABELS[field] : undefined) ??
    field;
