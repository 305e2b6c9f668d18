/**
 * The desk's routes (functions/http/desk): sign-in and the forms, for people in a browser.
 * Form posts take `application/x-www-form-urlencoded` fields named by their place in the event
 * (`source.publisher`, `data.quote`), plus `formToken` (the session's anti-forgery token) and
 * `eventId` (the event the form stores, however often it is sent). The evidence form posts
 * `multipart/form-data`: the same fields and the chosen `file`.
 */
type Json = Record<string, unknown>;

const tags = ["desk"];
const html = (description: string) => ({
  description,
  content: { "text/html": { schema: { type: "string" } } },
});
const redirect = (description: string) => ({
  description,
  headers: { Location: { required: true, schema: { type: "string" } } },
});
const refused = {
  description:
    "Refused, nothing stored: a post from an origin other than the archive's public one (LEDGER_PUBLIC_URL where set, else the request's own; a page for a browser, problem+json for a program), or without this session's form token, or without the role the form needs (a page saying so).",
  content: {
    "text/html": { schema: { type: "string" } },
    "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } },
  },
};
const form = {
  required: true,
  content: {
    "application/x-www-form-urlencoded": {
      schema: { type: "object", additionalProperties: { type: "string" } },
    },
  },
};
/** The evidence form (`/desk/incidents/{id}/evidence`): its fields, and the chosen file's bytes. */
const formWithFile = {
  required: true,
  content: {
    ...form.content,
    "multipart/form-data": {
      schema: {
        type: "object",
        properties: { file: { type: "string", contentMediaType: "application/octet-stream" } },
        additionalProperties: { type: "string" },
      },
    },
  },
};
const page = { security: [] as unknown[] };
/** A post of a signed-in person: the session cookie, checked with the form's token. */
const session = { security: [{ session: [] }] };
const badQuery = {
  description: "A query parameter this route does not take; `errors` names it.",
  content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
};
const incident = {
  name: "incidentId",
  in: "path",
  required: true,
  description: "The incident the form adds to.",
  schema: { type: "string" },
};
const slug = {
  name: "form",
  in: "path",
  required: true,
  description:
    "The form: casualties, statement, denial, assessment, retraction, evidence (and each newer type's).",
  schema: { type: "string" },
};
const formPost = (operationId: string, summary: string, parameters: Json[] = [], body: Json = form) => ({
  operationId,
  tags,
  summary,
  description:
    "Needs the session cookie, the same origin and the session's `formToken`; then the form's role; then the API's own validation and append (the same rules, roles and `recordedBy`). Post/redirect/get on success.",
  ...session,
  parameters,
  requestBody: body,
  responses: {
    "200": html('The form again with one more row ("Add another category"); nothing stored.'),
    "204": {
      description:
        "Stored, asked by the upload script (header `X-Desk-Upload`): where the post/redirect/get would lead.",
      headers: { "X-Desk-Location": { required: true, schema: { type: "string" } } },
    },
    "303": redirect("Stored (or stored before, by the same eventId): the incident's page at the event."),
    "400": html("The form again, every value kept, each problem beside its field and in a summary."),
    "403": refused,
    "404": html("No such incident."),
    "409": html(
      "The form again: the incident exists already, or the form was stored before with other values.",
    ),
    "413": html("The evidence form again: the file is over the archive's evidence limit; nothing kept."),
    "415": html("The evidence form again: the file's media type is not one the archive takes."),
    "422": html("The form again, every value kept, each problem beside its field and in a summary."),
  },
});
/** A form's link names the eventId it carries, so the page Back returns to is the same form. */
const formEventId: Json = {
  name: "eventId",
  in: "query",
  required: false,
  description:
    "The eventId the form carries (a link from the desk names a new one); if it is stored already, the page says so and links to it. Without it the form gets a new one.",
  schema: { $ref: "#/components/schemas/EventId" },
};

const formPage = (operationId: string, summary: string, parameters: Json[] = []) => ({
  operationId,
  tags,
  summary,
  description:
    "Server-rendered HTML, no script; every field labelled, grouped in fieldsets; names already in the archive suggested.",
  ...page,
  parameters,
  responses: {
    "200": html("The form, with a new eventId and the session's form token."),
    "303": redirect("Not signed in: to /sign-in, coming back here after."),
    "403": html("The signed-in user lacks the role the form needs."),
    "400": badQuery,
    "404": html("No such incident."),
  },
});

export const paths: Record<string, Json> = {
  "/sign-in": {
    get: {
      operationId: "getSignIn",
      tags,
      summary: "Sign in (a token locally; the issuer's login in AWS)",
      description:
        "Locally a form taking a token of LEDGER_TOKEN or LEDGER_USERS. With OpenID Connect, a redirect to the issuer (authorization code flow with PKCE, state and nonce).",
      ...page,
      parameters: [
        {
          name: "next",
          in: "query",
          required: false,
          description: "A path of this site to return to.",
          schema: { type: "string" },
        },
      ],
      responses: {
        "200": html("The sign-in form (local: a token)."),
        "302": redirect("OpenID Connect: to the issuer's authorization endpoint (code flow with PKCE)."),
        "400": badQuery,
      },
    },
    post: {
      operationId: "postSignIn",
      tags,
      summary: "Start a session",
      description: "Form fields `token` and `next`. Same origin only.",
      ...page,
      requestBody: form,
      responses: {
        "200": html("The form again: no token was entered."),
        "302": redirect("OpenID Connect: to the issuer's authorization endpoint."),
        "303": redirect(
          "Signed in: a session cookie (HttpOnly, SameSite=Lax, Secure over https, ≤ 12 h; locally, only while the token is configured with the same name and roles) and on to `next`.",
        ),
        "401": html("The form again: the token is not one this archive knows."),
        "403": refused,
      },
    },
  },
  "/sign-in/callback": {
    get: {
      operationId: "getSignInCallback",
      tags,
      summary: "Where the issuer sends the browser back (OpenID Connect)",
      description:
        "The code is exchanged with the PKCE verifier; the ID token is verified against the issuer's JWKS (signature, issuer, audience, expiry, nonce); its groups become roles.",
      ...page,
      parameters: ["code", "state", "error", "error_description", "error_uri", "iss", "session_state"].map(
        (name) => ({
          name,
          in: "query",
          required: false,
          description: "As the issuer sends it.",
          schema: { type: "string" },
        }),
      ),
      responses: {
        "200": html(
          "Not signed in: the issuer answered with an error (e.g. the person cancelled), or this archive signs in with a token.",
        ),
        "303": redirect("Signed in: the code exchanged, the ID token verified, a session started."),
        "400": {
          description:
            "The state does not match a sign-in this browser started (a page), or an unknown query parameter (a problem).",
          content: {
            "text/html": { schema: { type: "string" } },
            "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } },
          },
        },
        "401": html("The issuer refused the code or its ID token did not verify."),
      },
    },
  },
  "/sign-out": {
    get: {
      operationId: "getSignOut",
      tags,
      summary: "The sign-out page (its button posts; signing out changes state)",
      description:
        "For an address typed or kept: signed in, the page's Sign out button (POST /sign-out); signed out, a link to sign in. Changes nothing.",
      ...page,
      responses: { "200": html("The page: the Sign out button, or a link to sign in."), "400": badQuery },
    },
    post: {
      operationId: "postSignOut",
      tags,
      summary: "End the session",
      description:
        "Revokes the session on the server (a copy of its cookie stops working) and clears the cookie; with OpenID Connect, offers the issuer's sign-out too.",
      ...session,
      requestBody: form,
      responses: { "200": html("Signed out: the session cookie cleared."), "403": refused },
    },
  },
  "/desk": {
    get: {
      operationId: "getDesk",
      tags,
      summary: "The desk: what the signed-in user may record",
      description: "The forms the user's roles allow, and the latest incidents to add to.",
      ...page,
      responses: {
        "200": html("The desk."),
        "303": redirect("Not signed in: to /sign-in."),
        "400": badQuery,
      },
    },
  },
  "/desk/new": {
    get: formPage("getDeskNewIncident", "The form that opens an incident", [formEventId]),
    post: formPost("postDeskNewIncident", "Open an incident (IncidentOpened, through the API's append)"),
  },
  "/desk/incidents/{incidentId}/{form}": {
    get: formPage("getDeskForm", "A form that adds a report to an incident", [
      incident,
      slug,
      {
        name: "target",
        in: "query",
        required: false,
        description: "The event an assessment or retraction names, picked beforehand.",
        schema: { type: "string" },
      },
      formEventId,
    ]),
    post: formPost(
      "postDeskForm",
      "Add a report to an incident (through the API's append; evidence through POST /evidence first)",
      [incident, slug],
      formWithFile,
    ),
  },
  "/desk/upload.js": {
    get: {
      operationId: "getDeskUploadScript",
      tags,
      summary: "The evidence form's script: the upload's progress",
      description:
        "Progressive enhancement only: the same post sent with XMLHttpRequest, its progress in the form's <progress>.",
      ...page,
      responses: {
        "200": {
          description: "The script.",
          content: { "text/javascript": { schema: { type: "string" } } },
        },
        "400": badQuery,
      },
    },
  },
  "/desk/release": {
    get: formPage("getDeskRelease", "The form that names a release (editors)"),
    post: (() => {
      const { responses, ...rest } = formPost("postDeskRelease", "Name a release (POST /releases, editors)");
      const {
        "204": _upload,
        "303": _redirect,
        "404": _incident,
        "413": _big,
        "415": _type,
        ...kept
      } = responses;
      return {
        ...rest,
        description:
          "Needs the session cookie, the same origin and the session's `formToken`; then the editor role; then POST /releases' own validation. The answer is a page: the release, its citation line and its exports.",
        responses: {
          ...kept,
          "200": html(
            "The same release sent again (this person, this name and note): the release's page, saying that nothing new was stored.",
          ),
          "201": html("Named: the release's page, its citation line and its exports at its tree size."),
          "409": html("The form again: the name is another release's."),
        },
      };
    })(),
  },
  "/desk/evidence/{sha256}": {
    get: {
      operationId: "getDeskEvidence",
      tags,
      summary: "Evidence bytes for the signed-in person (restricted ones for a restricted-reader)",
      description:
        "GET /evidence/{sha256} as the session's user, where a browser sends its session and no bearer token: the same headers, ranges and answers, the same role check, and the same record of each restricted read. Without a session: a redirect to sign in. The incident page links restricted evidence here. Takes no query parameters.",
      ...page,
      parameters: [
        {
          name: "sha256",
          in: "path",
          required: true,
          schema: { type: "string", pattern: "^[0-9a-f]{64}$" },
        },
        { name: "Range", in: "header", required: false, schema: { type: "string" } },
      ],
      responses: {
        "200": {
          description:
            "The bytes, in their own media type; or, where the 303 to sign in was followed, the sign-in page.",
          content: {
            "*/*": { schema: { type: "string", format: "binary" } },
            "text/html": { schema: { type: "string" } },
          },
        },
        "206": {
          description: "The range asked for.",
          content: { "*/*": { schema: { type: "string", format: "binary" } } },
        },
        "303": redirect("Not signed in: to /sign-in, back here after."),
        "304": { description: "If-None-Match named this ETag." },
        "307": redirect("AWS: a short-lived presigned URL of the bytes."),
        "400": badQuery,
        "403": html("A page saying the signed-in person is not a restricted-reader."),
        "404": html("A page saying no such bytes are held."),
        "416": { description: "The range starts beyond the end." },
        "500": html("A page saying the bytes held no longer match their SHA-256 (evidence-altered)."),
      },
    },
  },
  "/desk/bundle/{incidentId}/{eventId}": {
    get: {
      operationId: "getDeskProofBundle",
      tags,
      summary:
        "An event's proof bundle for the signed-in person (restricted bytes in it for a restricted-reader)",
      description:
        "GET /incidents/{incidentId}/events/{eventId}/bundle as the session's user, where a browser sends its session and no bearer token: the same zip, with the restricted bytes the event names for a restricted-reader (each such read recorded), without them for anyone else. Without a session: a redirect to sign in. The incident page links a restricted capture's bundle here. Takes no query parameters.",
      ...page,
      parameters: [
        {
          name: "incidentId",
          in: "path",
          required: true,
          schema: { $ref: "#/components/schemas/IncidentId" },
        },
        { name: "eventId", in: "path", required: true, schema: { type: "string" } },
      ],
      responses: {
        "200": {
          description: "The zip; or, where the 303 to sign in was followed, the sign-in page.",
          content: {
            "application/zip": { schema: { type: "string", format: "binary" } },
            "text/html": { schema: { type: "string" } },
          },
        },
        "202": {
          ...html("A page saying the event is not yet in a signed checkpoint, with a link to try again."),
          headers: { "Retry-After": { required: true, schema: { type: "string", pattern: "^[0-9]+$" } } },
        },
        "303": redirect("Not signed in: to /sign-in, back here after."),
        "400": badQuery,
        "403": html("A page saying the download was asked for by another site: nothing read or recorded."),
        "404": html("A page saying there is no such event in this incident."),
        "500": html("A page saying the bytes held no longer match their SHA-256 (evidence-altered)."),
      },
    },
  },
};

export const deskTags = [{ name: "desk", description: "Writing from a browser: sign-in, sessions, forms." }];
