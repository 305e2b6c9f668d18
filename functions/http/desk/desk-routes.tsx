import { type Context, Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { EventId, IncidentId } from "../../../events/schemas.js";
import { commitmentsIn, decodeDisclosure } from "../../../events/sealing.js";
import type { StoredEvent } from "../../../events/stored-event.js";
import type { FieldError } from "../../../events/validate.js";
import { parseAppendBody } from "../../../events/validate.js";
import { PayloadTooLargeError } from "../../errors.js";
import type { StagedBlob } from "../../evidence/blob-store.js";
import { DEFAULT_EVIDENCE_MAX, evidenceRoutes, type PagesEvidence } from "../../evidence/evidence-routes.js";
import { type PagesBundle, proofBundleRoutes } from "../../evidence/proof-bundle.js";
import type { IncidentReader } from "../../incident-reader.js";
import type { Logger } from "../../logger.js";
import type { DisclosureReader } from "../../people/disclosure-reader.js";
import type { EventStore } from "../../store/event-store.js";
import { type Authenticator, hasRole, type Principal } from "../auth.js";
import { API_DOWNLOADS, type DownloadLinks } from "../pages/evidence-section.js";
import { typeLabel, viewPath } from "../pages/format.js";
import { RestrictedNotice } from "../pages/victims-section.js";
import { acceptQuery, incidentIdProblem } from "../params.js";
import { createErrorHandler } from "../problem.js";
import { readBodyText } from "../read-body.js";
import { type EventRoutesDeps, eventRoutes, MAX_BODY_BYTES } from "../routes/events.js";
import type { ReleaseRoutesDeps } from "../routes/releases.js";
import { releaseRoutes } from "../routes/releases.js";
import { DeskHome, DeskLayout, messagePage, ResendForm, renderDesk } from "./desk-page.js";
import { formAddress, newEventId } from "./form-address.js";
import {
  ErrorSummary,
  type FormState,
  type FormValues,
  SuggestionLists,
  type Suggestions,
} from "./form-kit.js";
import { fieldMessages, formValues, nearestField, type ReadForm, setPath } from "./form-read.js";
import { ADD_ROW } from "./forms/casualties-reported.js";
import { type DeskForm, type FormContext, openedKey } from "./forms/desk-form.js";
import { DESK_FORMS } from "./forms/registry.js";
import { ReleaseFields, ReleaseNamed, releaseFieldFor, releaseLabel } from "./release-form.js";
import { sameOrigin } from "./same-origin.js";
import { formTokenMatches, type Session, type Sessions } from "./session.js";
import { suggestionsFrom } from "./suggestions.js";
import { type ChosenFile, readUpload, UPLOAD_FIELDS_BYTES } from "./upload-read.js";
import { UPLOAD_SCRIPT, UPLOAD_SCRIPT_ETAG, UPLOAD_SCRIPT_PATH } from "./upload-script.js";

export interface DeskDeps {
  events: EventStore;
  reader: IncidentReader;
  sessions: Sessions;
  log: Logger;
  /** The API's write path: the sealing append and its checks, never the bare event store's. */
  writes: Omit<EventRoutesDeps, "authenticate">;
  /** Releases (an editor's act), where this deployment's pages may name them. */
  releases?: Omit<ReleaseRoutesDeps, "authenticate">;
  forms?: readonly DeskForm[];
  /** The API's evidence store and limit: the upload form stages and keeps its bytes as POST /evidence does. */
  evidence?: PagesEvidence;
  /** The API's proof bundles: a signed-in restricted-reader's holds the restricted bytes. */
  bundle?: PagesBundle;
  /** The configured public origin a form must be posted from (same-origin.ts). */
  publicOrigin?: string;
  /** The sealed values a restricted-reader sees on a form that names people (each read recorded). */
  disclosures?: DisclosureReader;
}

const DESK_EVIDENCE = "/desk/evidence/";
const DESK_BUNDLE = "/desk/bundle/";
/** Where a signed-in person downloads restricted evidence and its proof bundles, by session. */
export const DESK_DOWNLOADS: DownloadLinks = {
  bytes: (sha256) => `${DESK_EVIDENCE}${sha256}`,
  bundle: (incidentId, eventId) =>
    `${DESK_BUNDLE}${encodeURIComponent(incidentId)}/${encodeURIComponent(eventId)}`,
};

/** The most events a form reads to pick a target from and to suggest names. */
const CONTEXT_EVENTS = 200;
const SUGGESTION_INCIDENTS = 20;

/**
 * A form is an event and its few fields, URL-encoded: each byte of text beyond ASCII is three
 * characters there (`%D0%9A`), so a form whose event fits the API's body limit can be three
 * times its size. The API then judges the event, naming any field too long.
 */
export const MAX_FORM_BYTES = 3 * MAX_BODY_BYTES;

interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: an API answer, read by status.
  body: any;
}

/**
 * The desk: a signed-in person's forms. Each post goes through the API's own route handlers,
 * in process (`eventRoutes`, `releaseRoutes`), with the session's user as the caller: the same
 * validation, the same roles, the same `recordedBy`, the same idempotency by `eventId`.
 */
export function deskRoutes(deps: DeskDeps) {
  const forms = deskForms(deps.forms, deps.evidence !== undefined);
  const evidenceMax = deps.evidence?.maxBytes ?? DEFAULT_EVIDENCE_MAX;
  const asUser: Authenticator = (c) => (c.env as { deskUser?: Principal } | undefined)?.deskUser ?? null;
  const api = new Hono();
  api.onError(createErrorHandler(deps.log));
  api.route("/", eventRoutes({ ...deps.writes, authenticate: asUser }));
  if (deps.releases) api.route("/", releaseRoutes({ ...deps.releases, authenticate: asUser }));
  // A browser sends its session, never a bearer token: a signed-in restricted-reader's download
  // goes through the API's own evidence read as that user (the same role check, the same record).
  if (deps.evidence)
    api.route(
      "/",
      evidenceRoutes({ ...deps.evidence, authenticate: asUser, readers: async (c) => asUser(c) }),
    );
  if (deps.bundle) api.route("/", proofBundleRoutes({ ...deps.bundle, readers: async (c) => asUser(c) }));
  const send = async (who: Principal, path: string, body: unknown): Promise<Answer> => {
    const res = await api.request(
      path,
      { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) },
      { deskUser: who },
    );
    return { status: res.status, body: await res.json() };
  };
  /** A chosen file's staged bytes, kept: under their SHA-256, as POST /evidence keeps bytes. */
  const keepBytes = async (who: Principal, staged: StagedBlob, access: string | undefined) => {
    // Restricted bytes are restricted as they are kept, before the capture that says so is stored.
    const result = await staged.keep(access === "restricted" ? "restricted" : undefined);
    deps.log.info("evidence stored", {
      sha256: result.sha256,
      size: result.size,
      created: result.created,
      by: who.name,
      desk: true,
    });
  };
  /** Post/redirect/get; the upload script asks for the place instead (a redirect's #fragment is lost to it). */
  const stored = (c: Context, location: string) =>
    c.req.header("x-desk-upload")
      ? c.body(null, 204, { "X-Desk-Location": location, "Cache-Control": "no-store" })
      : c.redirect(location, 303);

  const app = new Hono();

  /** The session, or a redirect to sign in (a GET) or 403 (a post without one). */
  const session = async (c: Context): Promise<Session | Response> => {
    const found = await deps.sessions.read(c);
    if (found) return found;
    if (c.req.method !== "GET") return signedOut(c);
    return c.redirect(`/sign-in?next=${encodeURIComponent(c.req.path)}`, 303);
  };

  /**
   * A post whose session has ended: nothing is stored, and what it holds is kept in the answer,
   * to be sent again once signed in (Back would reload the form signed out, empty). A file
   * cannot be held so: an upload form is chosen again.
   */
  const signedOut = async (c: Context) => {
    const form = /^application\/x-www-form-urlencoded\b/i.test(c.req.header("content-type") ?? "");
    const values = form ? await readBodyText(c, MAX_FORM_BYTES).then(formValues, () => null) : null;
    const signIn = (
      <a href="/sign-in" target="_blank" rel="noopener">
        sign in in another tab
      </a>
    );
    return values
      ? messagePage(
          c,
          403,
          "Not signed in",
          <>
            Your session has ended, so nothing was stored. What you typed is kept in this page: {signIn}, then
            come back here and send it again. The form comes back filled in, to check and send.
          </>,
          null,
          <ResendForm action={c.req.path} values={values} />,
        )
      : messagePage(
          c,
          403,
          "Not signed in",
          <>
            Your session has ended, so nothing was stored. {signIn}, then go back to the form (the browser
            keeps what you typed, not a chosen file) and send it again.
          </>,
        );
  };

  /**
   * A post's form, once its session, anti-forgery token and role are checked. A form made for
   * an earlier session (signed in again since) is `stale`'s to show again, what it holds kept.
   */
  const posted = async (
    c: Context,
    form: { role: DeskForm["role"]; title: string },
    read: (s: Session) => Promise<Map<string, string> | Response> = async () =>
      formValues(await readBodyText(c, MAX_FORM_BYTES)),
    stale?: (s: Session, values: Map<string, string>) => Promise<Response>,
  ) => {
    const s = await session(c);
    if (s instanceof Response) return s;
    let values: Map<string, string> | Response;
    try {
      values = await read(s);
    } catch (error) {
      // Past the bound the form is not read, so it cannot be shown again: say so on a page.
      if (!(error instanceof PayloadTooLargeError)) throw error;
      return messagePage(
        c,
        413,
        "The form is too large",
        `The form was over ${sizeText(MAX_FORM_BYTES)}, so nothing was stored. Go back (the browser keeps what you typed) and shorten the longest text.`,
        s,
      );
    }
    if (values instanceof Response) return values;
    // A token of another session: a form made before signing in again. None at all: refused.
    if (
      values.get("formToken") &&
      !formTokenMatches(s, values.get("formToken")) &&
      stale &&
      hasRole(s.who, form.role)
    )
      return stale(s, values);
    if (!formTokenMatches(s, values.get("formToken")))
      return messagePage(
        c,
        403,
        "Form refused",
        "This form was not made for your session; nothing was stored. Open it again.",
        s,
      );
    if (!hasRole(s.who, form.role))
      return messagePage(
        c,
        403,
        "Not allowed",
        `${form.title} needs the ${form.role} role, which you do not hold; nothing was stored.`,
        s,
      );
    return { session: s, values };
  };

  const suggestions = async (events: readonly StoredEvent[]): Promise<Suggestions> => {
    const recent = await deps.reader.list({ limit: SUGGESTION_INCIDENTS });
    return suggestionsFrom(events, recent.items);
  };

  const contextFor = async (incidentId: string | null, target?: string): Promise<FormContext> => {
    if (!incidentId) return { incidentId, events: [] };
    const head = await deps.events.readHead(incidentId);
    const events = await deps.events.eventsBetween(
      incidentId,
      Math.max(0, head.version - CONTEXT_EVENTS),
      head.version,
    );
    const summary = await deps.reader.summary(incidentId, { at: "current", minVersion: head.version });
    return { incidentId, events: [...events].reverse(), summary, ...(target ? { target } : {}) };
  };

  /**
   * The sealed values a form that names people shows its reader, as the incident page shows
   * them: public ones to anyone, restricted ones to a restricted-reader, each such read recorded
   * before the page goes out. `restricted`: the page shows values others do not see.
   */
  const opened = async (form: DeskForm, who: Principal, context: FormContext) => {
    const reader = deps.disclosures;
    const values = new Map<string, unknown>();
    let restricted = false;
    if (!form.namesPeople || !reader) return { values, restricted };
    const sealed = context.events.filter((e) => commitmentsIn(e).length > 0);
    const read = await Promise.all(
      sealed.map(async (e) => ({ e, ...(await reader.ofEvent(e, who, `desk form ${form.slug}`)) })),
    );
    for (const { e, items } of read)
      for (const item of items) {
        const disclosed = decodeDisclosure(item.disclosure);
        if (!disclosed) continue;
        values.set(openedKey(e.eventId, item.pointer), disclosed.value);
        restricted ||= item.visibility === "restricted";
      }
    return { values, restricted };
  };

  const page = async (
    c: Context,
    status: ContentfulStatusCode,
    s: Session,
    form: DeskForm,
    shared: FormContext,
    values: FormValues,
    errors: ReadonlyMap<string, string>,
    general: readonly string[],
    recorded?: StoredEvent,
    focus?: string,
  ) => {
    const open = await opened(form, s.who, shared);
    const context = open.values.size > 0 ? { ...shared, opened: open.values } : shared;
    const order = form.fields(values);
    const sorted = new Map([...errors].sort(([a], [b]) => rank(order, a) - rank(order, b)));
    const state: FormState = {
      values,
      errors: sorted,
      suggestions: await suggestions(context.events),
      ...(focus ? { focus } : {}),
    };
    const action = form.where === "new" ? "/desk/new" : `/desk/incidents/${context.incidentId}/${form.slug}`;
    return renderDesk(
      c,
      status,
      <DeskLayout title={`${sorted.size || general.length ? "Error: " : ""}${form.title}`} session={s}>
        <ErrorSummary errors={sorted} general={general} />
        {recorded ? <RecordedNotice event={recorded} fresh={formAddress(c.req.url)} /> : null}
        {context.incidentId ? (
          <p class="crumbs">
            <a href={viewPath(context.incidentId)}>
              {"← Back to "}
              <bdi>{context.summary?.title ?? context.incidentId}</bdi>
            </a>
          </p>
        ) : null}
        <h1>{form.title}</h1>
        <p class="muted">{form.blurb}</p>
        {open.restricted ? <RestrictedNotice reader={s.who.name} /> : null}
        <form
          method="post"
          action={action}
          class="desk-form"
          novalidate
          {...(form.upload ? { enctype: "multipart/form-data", "data-upload": "" } : {})}
        >
          <input type="hidden" name="formToken" value={s.formToken} />
          <input type="hidden" name="eventId" value={values.get("eventId") ?? newEventId()} />
          <SuggestionLists suggestions={state.suggestions} />
          <form.Fields form={state} context={context} />
          <div class="actions">
            <button type="submit">{form.title}</button>
            {form.addRow ? (
              <button type="submit" name="action" value={ADD_ROW} class="secondary">
                {form.addRow}
              </button>
            ) : null}
          </div>
        </form>
        {form.upload ? <script src={UPLOAD_SCRIPT_PATH} defer /> : null}
      </DeskLayout>,
    );
  };

  const show = async (c: Context, form: DeskForm, incidentId: string | null) => {
    const s = await session(c);
    if (s instanceof Response) return s;
    if (!hasRole(s.who, form.role))
      return messagePage(
        c,
        403,
        "Not allowed",
        `${form.title} needs the ${form.role} role, which you do not hold.`,
        s,
      );
    if (incidentId !== null && !IncidentId.safeParse(incidentId).success)
      return messagePage(c, 404, "No such incident", "That incident name is not one this archive uses.", s);
    const context = await contextFor(incidentId, c.req.query("target"));
    if (incidentId && context.events.length === 0)
      return messagePage(c, 404, "No such incident", `The archive has no incident ${incidentId}.`, s);
    const values = new Map(Object.entries(form.initial?.(context) ?? {}));
    // A link to a form names its eventId (form-address.ts); one already stored is said so.
    const eventId = c.req.query("eventId");
    if (eventId === undefined) return page(c, 200, s, form, context, values, new Map(), []);
    if (!EventId.safeParse(eventId).success)
      return messagePage(
        c,
        400,
        "Not a form's address",
        "The address's eventId is not one this desk makes: open the form again from its link.",
        s,
      );
    values.set("eventId", eventId);
    const recorded = await recordedBy(eventId, form, incidentId);
    if (recorded === "another")
      return messagePage(
        c,
        400,
        "Not a form's address",
        "The address's eventId names an event another form recorded: open this form again from its link.",
        s,
      );
    return page(c, 200, s, form, context, values, new Map(), [], recorded);
  };

  /**
   * The event a form's eventId names where this form recorded it; "another" where another form
   * did (another type, another incident), which makes it no address of this form.
   */
  const recordedBy = async (eventId: string, form: DeskForm, incidentId: string | null) => {
    const recorded = (await deps.events.findClientEvent(eventId)) ?? undefined;
    if (!recorded) return undefined;
    const mine = recorded.type === form.type && (incidentId === null || recorded.incidentId === incidentId);
    return mine ? recorded : "another";
  };

  const submit = async (c: Context, form: DeskForm, pathIncidentId: string | null) => {
    // An upload form's file, staged as it arrives with the fields around it; never kept unless
    // the event is stored with it, and never left staged.
    const chosen: { file: ChosenFile | null; tooLong: string[] } = { file: null, tooLong: [] };
    try {
      return await submitRead(c, form, pathIncidentId, chosen);
    } finally {
      await chosen.file?.staged?.discard();
    }
  };

  const submitRead = async (
    c: Context,
    form: DeskForm,
    pathIncidentId: string | null,
    chosen: { file: ChosenFile | null; tooLong: string[] },
  ) => {
    const upload = form.upload;
    const store = deps.evidence?.store;
    const checked = await posted(
      c,
      form,
      upload && store
        ? async (s) => {
            const got = await readUpload(c, { max: evidenceMax, fileField: upload, store });
            if (got.kind === "read") {
              chosen.file = got.file;
              chosen.tooLong = got.tooLong;
              return got.values;
            }
            const message = `${form.label(upload)} must be at most ${sizeText(evidenceMax)}: nothing was stored`;
            const context = await contextFor(pathIncidentId);
            const initial = new Map(Object.entries(form.initial?.(context) ?? {}));
            return page(c, 413, s, form, context, initial, new Map([[upload, message]]), []);
          }
        : undefined,
      // Its values in a form for this session, the same eventId: sent, it stores one event.
      async (s, values) =>
        page(c, 403, s, form, await contextFor(pathIncidentId), values, new Map(), [
          `This form was made for an earlier session, so nothing was stored. Check what it holds${upload ? ", choose the file again" : ""} and send it again.`,
        ]),
    );
    if (checked instanceof Response) return checked;
    const { session: s, values } = checked;
    const incidentId = pathIncidentId ?? (values.get("incidentId") ?? "").trim();
    const context = await contextFor(pathIncidentId);
    if (form.addRow && values.get("action") === ADD_ROW) {
      const grown = new Map(values);
      grown.set("rows", String((Number(values.get("rows")) || 0) + 1));
      const before = new Set(form.fields(values));
      const added = form.fields(grown).find((field) => !before.has(field));
      return page(c, 200, s, form, context, grown, new Map(), [], undefined, added);
    }
    const read = form.read(values, context);
    if (upload) withFile(read, upload, chosen.file, evidenceMax);
    const fields = new Set(form.fields(values));
    for (const name of chosen.tooLong)
      if (fields.has(name)) read.errors.set(name, `must be at most ${sizeText(UPLOAD_FIELDS_BYTES)} of text`);
    const fieldFor = (path: string) =>
      path === "incidentId" ? "incidentId" : (form.fieldFor?.(path, values) ?? nearestField(path, fields));
    const refuse = async (
      status: ContentfulStatusCode,
      problems: readonly FieldError[],
      extra: string[] = [],
    ) => {
      const { fields: messages, general } = fieldMessages(problems, read.errors, fieldFor, form.label);
      // A form sent before, reached again with Back (or the refusal before it was put right):
      // the page says its report is recorded, beside the problems, under the same eventId, so
      // the stored values sent again store nothing and others come back as a new form (409).
      const eventId = values.get("eventId") ?? "";
      const recorded =
        status === 422 && EventId.safeParse(eventId).success
          ? await recordedBy(eventId, form, pathIncidentId)
          : undefined;
      const notice = recorded && recorded !== "another" ? recorded : undefined;
      return page(c, status, s, form, context, values, messages, [...extra, ...general], notice);
    };
    // A form that could not be read whole (a number in words, a category twice) is never sent:
    // the event's own problems come from the API's parser, the same the route runs.
    const rest = () => {
      const parsed = parseAppendBody(read.body);
      return parsed.ok ? [] : parsed.errors;
    };
    if (incidentId === "") return refuse(422, [{ path: "incidentId", message: "is required" }, ...rest()]);
    // A new incident's name is checked with the rest: every problem is named in one sending.
    const misnamed = pathIncidentId === null ? incidentIdProblem(incidentId) : null;
    if (read.errors.size > 0) return refuse(422, [...(misnamed ? [misnamed] : []), ...rest()]);
    if (!IncidentId.safeParse(incidentId).success && pathIncidentId)
      return messagePage(c, 404, "No such incident", "That incident name is not one this archive uses.", s);
    const staged = chosen.file?.staged;
    if (upload && staged) {
      if (context.events.length === 0)
        return messagePage(c, 404, "No such incident", `The archive has no incident ${incidentId}.`, s);
      // The event is checked whole before its bytes are kept: a refused form keeps nothing.
      const parsed = parseAppendBody(read.body);
      if (!parsed.ok) return refuse(422, parsed.errors);
      await keepBytes(s.who, staged, values.get("data.access"));
    }
    const answer = await send(s.who, `/incidents/${encodeURIComponent(incidentId)}/events`, read.body);
    if (answer.status === 201 || answer.status === 200) {
      const event = answer.body.events[0] as { eventId: string };
      return stored(c, recordedPath(incidentId, event.eventId));
    }
    const problems: FieldError[] = answer.body.errors ?? [];
    // The id is checked before the body: the body's own problems are listed too, by the same parser.
    if (problems.length > 0 && problems.every((p) => p.path === "incidentId"))
      return refuse(422, [...problems, ...rest()]);
    if (answer.status === 403) return messagePage(c, 403, "Not allowed", answer.body.detail, s);
    const slug = String(answer.body.type ?? "");
    if (slug.endsWith("incident-exists"))
      return refuse(409, [
        { path: "incidentId", message: "names an incident that exists already: choose another name" },
      ]);
    if (slug.endsWith("event-id-conflict")) {
      // Stored before with other values (the form was sent, then changed): a new form keeps them.
      const again = new Map(values);
      again.delete("eventId");
      return page(c, 409, s, form, context, again, new Map(), [
        "This form was already recorded, with other values; nothing new was stored. Check the incident's timeline, then send this form again to record these values as a new report.",
      ]);
    }
    return refuse(
      answer.status as ContentfulStatusCode,
      problems,
      problems.length ? [] : [String(answer.body.detail)],
    );
  };

  app.get(UPLOAD_SCRIPT_PATH, acceptQuery(), (c) =>
    c.body(UPLOAD_SCRIPT, 200, {
      "Content-Type": "text/javascript; charset=utf-8",
      "Cache-Control": "public, max-age=300",
      ETag: UPLOAD_SCRIPT_ETAG,
      "X-Content-Type-Options": "nosniff",
    }),
  );

  /**
   * A download by session: the API's own read of `apiPath` as the signed-in person (the same
   * role check, the same record of a restricted read); a refusal as a page.
   */
  const download = async (c: Context, apiPath: string) => {
    const s = await session(c);
    if (s instanceof Response) return s;
    // The session cookie goes with any top-level navigation (SameSite=Lax): a download another
    // site starts would save restricted bytes and record a read the person never asked for.
    const site = c.req.header("sec-fetch-site");
    if (site !== undefined && site !== "same-origin" && site !== "none")
      return messagePage(
        c,
        403,
        "A download another site asked for",
        <>
          Evidence is downloaded from the archive's own pages only: nothing was read or recorded.{" "}
          <a href={c.req.path}>Download it from here</a> if you meant to.
        </>,
        s,
      );
    const headers = new Headers();
    for (const name of ["range", "if-range", "if-none-match"]) {
      const value = c.req.header(name);
      if (value !== undefined) headers.set(name, value);
    }
    const answer = await api.request(apiPath, { method: c.req.method, headers }, { deskUser: s.who });
    // A bundle of an event the log does not hold yet: a page to come back from, not the API's JSON.
    if (answer.status === 202 && c.req.method === "GET") {
      const page = await messagePage(
        c,
        202,
        "Not in the log yet",
        <>
          This event is stored, and will be in a signed checkpoint within seconds: its proof bundle can be
          made then. <a href={c.req.path}>Try again</a>.
        </>,
        s,
      );
      page.headers.set("Retry-After", answer.headers.get("retry-after") ?? "1");
      return page;
    }
    // A refusal is a page; an answer without a body (HEAD, a 416) goes as it is.
    const problemBody =
      c.req.method === "GET" && answer.headers.get("content-type")?.startsWith("application/problem+json");
    if (answer.status < 400 || !problemBody) return answer;
    const problem = (await answer.json()) as { title: string; detail: string };
    // The desk's own words for a role not held, as on its other pages; the API's detail says which.
    const title = answer.status === 403 ? "Not allowed" : problem.title;
    return messagePage(c, answer.status as ContentfulStatusCode, title, problem.detail, s);
  };
  if (deps.evidence)
    app.get(`${DESK_EVIDENCE}:sha256`, acceptQuery(), (c) =>
      download(c, API_DOWNLOADS.bytes(encodeURIComponent(c.req.param("sha256")))),
    );
  if (deps.bundle)
    app.get(`${DESK_BUNDLE}:incidentId/:eventId`, acceptQuery(), (c) =>
      download(c, API_DOWNLOADS.bundle(c.req.param("incidentId"), c.req.param("eventId"))),
    );

  app.get("/desk", acceptQuery(), async (c) => {
    const s = await session(c);
    if (s instanceof Response) return s;
    const recent = await deps.reader.list({ limit: SUGGESTION_INCIDENTS });
    const offered = forms.filter((f) => f.where === "new" && hasRole(s.who, f.role));
    return renderDesk(
      c,
      200,
      <DeskHome
        session={s}
        offered={offered}
        release={deps.releases !== undefined && hasRole(s.who, "editor")}
        readOnly={offered.length === 0 && !hasRole(s.who, "editor")}
        mayAdd={forms.some((f) => f.where === "incident" && hasRole(s.who, f.role))}
        recent={recent.items}
      />,
    );
  });

  const opening = forms.find((f) => f.where === "new");
  if (opening) {
    app.get("/desk/new", acceptQuery("eventId"), (c) => show(c, opening, null));
    app.post("/desk/new", acceptQuery(), sameOrigin(deps.publicOrigin), (c) => submit(c, opening, null));
  }
  const bySlug = new Map(forms.filter((f) => f.where === "incident").map((f) => [f.slug, f]));
  const onIncident =
    (run: (c: Context, form: DeskForm, incidentId: string) => Promise<Response>) => async (c: Context) => {
      const form = bySlug.get(c.req.param("form") ?? "");
      if (!form) return messagePage(c, 404, "No such form", "The desk has no form of that name.");
      return run(c, form, c.req.param("incidentId") ?? "");
    };
  const FORM_PATH = "/desk/incidents/:incidentId/:form";
  app.get(FORM_PATH, acceptQuery("target", "eventId"), onIncident(show));
  app.post(FORM_PATH, acceptQuery(), sameOrigin(deps.publicOrigin), onIncident(submit));

  if (deps.releases) {
    const release = { role: "editor" as const, title: "Name a release" };
    const releasePage = (
      c: Context,
      status: ContentfulStatusCode,
      s: Session,
      values: FormValues,
      errors: Map<string, string>,
      general: string[],
    ) =>
      renderDesk(
        c,
        status,
        <DeskLayout title={`${errors.size || general.length ? "Error: " : ""}${release.title}`} session={s}>
          <ErrorSummary errors={errors} general={general} />
          <h1>{release.title}</h1>
          <p class="muted">
            A release names the log's latest checkpoint: a citable, checkable state of the whole archive.
          </p>
          <form method="post" action="/desk/release" class="desk-form" novalidate>
            <input type="hidden" name="formToken" value={s.formToken} />
            <ReleaseFields form={{ values, errors, suggestions: { speakers: [], publishers: [] } }} />
            <div class="actions">
              <button type="submit">{release.title}</button>
            </div>
          </form>
        </DeskLayout>,
      );
    app.get("/desk/release", acceptQuery(), async (c) => {
      const s = await session(c);
      if (s instanceof Response) return s;
      if (!hasRole(s.who, "editor"))
        return messagePage(
          c,
          403,
          "Not allowed",
          "Naming a release needs the editor role, which you do not hold.",
          s,
        );
      return releasePage(c, 200, s, new Map(), new Map(), []);
    });
    app.post("/desk/release", acceptQuery(), sameOrigin(deps.publicOrigin), async (c) => {
      const checked = await posted(c, release);
      if (checked instanceof Response) return checked;
      const { session: s, values } = checked;
      const answer = await send(s.who, "/releases", {
        name: values.get("name") ?? "",
        note: values.get("note") ?? "",
      });
      const named = (release: Answer["body"], again: boolean) =>
        renderDesk(
          c,
          again ? 200 : 201,
          <DeskLayout title={`Release ${release.name}`} session={s}>
            <ReleaseNamed release={release as Parameters<typeof ReleaseNamed>[0]["release"]} again={again} />
          </DeskLayout>,
        );
      if (answer.status === 201) return named(answer.body, false);
      // The same form sent again (Back, a reload): the release this person named with this note.
      if (answer.status === 409) {
        const held = await api.request(`/releases/${encodeURIComponent(values.get("name") ?? "")}`);
        const release: Answer["body"] = held.ok ? await held.json() : null;
        if (release && release.createdBy === s.who.name && release.note === (values.get("note") ?? ""))
          return named(release, true);
      }
      const problems: FieldError[] = answer.body.errors ?? [];
      const { fields, general } = fieldMessages(problems, new Map(), releaseFieldFor, releaseLabel);
      return releasePage(
        c,
        answer.status as ContentfulStatusCode,
        s,
        values,
        fields,
        problems.length ? general : [String(answer.body.detail)],
      );
    });
  }

  return app;
}

/** The forms this desk offers: an upload form only where it holds evidence. */
export const deskForms = (forms: readonly DeskForm[] = DESK_FORMS, evidence = false) =>
  forms.filter((f) => !f.upload || evidence);

/** The chosen file's bytes into the capture (`sha256`, `size`, `mediaType`), or why they cannot be. */
function withFile(read: ReadForm, field: string, file: ChosenFile | null, max: number): void {
  if (!file) read.errors.set(field, "is required: choose the file to upload");
  else if (!file.staged) read.errors.set(field, `must be at most ${sizeText(max)}: nothing was stored`);
  else if (file.staged.size === 0) read.errors.set(field, "is empty: choose a file with something in it");
  else {
    setPath(read.body, ["data", "sha256"], file.staged.sha256);
    setPath(read.body, ["data", "size"], file.staged.size);
    setPath(read.body, ["data", "mediaType"], file.mediaType);
  }
}

/** Where a stored form leads: the incident's page, saying what was recorded, at that event. */
export const recordedPath = (incidentId: string, eventId: string) =>
  `${viewPath(incidentId)}?${new URLSearchParams({ recorded: eventId })}#ev-${eventId}`;

/** 262144 → "256 KiB": a limit as a person reads it. */
export function sizeText(bytes: number): string {
  for (const [unit, size] of [
    ["GiB", 2 ** 30],
    ["MiB", 2 ** 20],
    ["KiB", 2 ** 10],
  ] as const)
    if (bytes >= size) return `${Number((bytes / size).toFixed(1))} ${unit}`;
  return `${bytes} bytes`;
}

/** A form already stored (reopened with Back, or its address kept): where it is, and how to start anew. */
function RecordedNotice({ event, fresh }: { event: StoredEvent; fresh: string }) {
  return (
    <div class="notice" role="status">
      <p>
        <strong>This form was already recorded</strong>, as{" "}
        <a
          href={`${viewPath(event.incidentId)}#ev-${event.eventId}`}
        >{`${typeLabel(event.type)} (version ${event.version}) in ${event.incidentId}`}</a>
        . Sending this form again stores nothing new: the same values are that event, and other values come
        back in a new form, to be sent as another report if that is what they are.
      </p>
      <p>
        <a href={fresh}>Open a new, empty form</a> to record another report.
      </p>
    </div>
  );
}

const rank = (order: readonly string[], field: string) => {
  const i = order.indexOf(field);
  return i === -1 ? order.length : i;
};

/** The forms a signed-in person may open on an incident, for its page's desk panel. */
export function formsOffered(
  who: Principal,
  events: readonly StoredEvent[],
  forms: readonly DeskForm[] = DESK_FORMS,
) {
  const context: FormContext = { incidentId: null, events };
  return forms.filter(
    (f) => f.where === "incident" && hasRole(who, f.role) && (f.offered?.(context) ?? true),
  );
}
