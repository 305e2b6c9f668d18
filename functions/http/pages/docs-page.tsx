import { raw } from "hono/html";
import type { FC } from "hono/jsx";
import { Marked } from "marked";

/**
 * /docs: the OpenAPI document rendered on the server, with no script and no asset from
 * elsewhere, so it works offline and in Lambda alike.
 */
type Json = Record<string, unknown>;

/**
 * The document's descriptions are CommonMark, as OpenAPI says (`If-Match`, **Editors only**,
 * links): rendered, not shown as marks. They are the project's own words, never a user's.
 */
const markdown = new Marked();
const block = (text: string) => raw(markdown.parse(text, { async: false }) as string);
const inline = (text: string) => raw(markdown.parseInline(text, { async: false }) as string);

interface Operation {
  summary?: string;
  description?: string;
  parameters?: { name: string; in: string; required?: boolean; description?: string; schema?: Json }[];
  requestBody?: { content: Record<string, { schema: Json }> };
  responses: Record<string, { description: string }>;
  security?: unknown[];
}

const PROBLEMS: [string, number, string][] = [
  ["malformed-request", 400, "The body is not JSON, or a query parameter or header is malformed."],
  ["unauthorized", 401, "Missing or wrong credentials. Nothing was stored."],
  ["forbidden", 403, "Signed in, but without the role this needs (`role` names it). Nothing was stored."],
  [
    "cross-site-form",
    403,
    "A desk form posted from another site (its Origin is not the archive's). Nothing was stored.",
  ],
  ["not-found", 404, "No such incident, route, or point in its history."],
  ["version-conflict", 409, "If-Match named another version; `currentVersion` says which is current."],
  ["incident-exists", 409, "IncidentOpened on an incident that exists."],
  ["incident-missing", 409, "Any other event on an incident that does not exist yet."],
  ["event-id-conflict", 409, "The eventId is stored with other content, or on another incident."],
  ["payload-too-large", 413, "The body is over 256 KiB."],
  ["validation", 422, "Valid JSON, invalid event; `errors` lists each failing field."],
  [
    "invalid-upload-request",
    422,
    "A direct upload (POST /evidence/uploads) asked for with a missing or malformed field; `errors` names it.",
  ],
  [
    "invalid-release",
    422,
    "A release (POST /releases) asked for with a missing or malformed field; `errors` names it.",
  ],
  ["digest-mismatch", 422, "Evidence bytes whose SHA-256 or size is not the one declared; nothing was kept."],
  [
    "unsupported-media-type",
    415,
    "Evidence posted without its own media type in Content-Type; nothing was kept.",
  ],
  [
    "method-not-allowed",
    405,
    "The path exists, but not with this method; `Allow` lists the methods it takes.",
  ],
  [
    "evidence-altered",
    500,
    "Kept evidence bytes no longer match their SHA-256 (altered where they are kept): not served, and logged.",
  ],
  [
    "logged-event-missing",
    500,
    "A leaf of the transparency log names an event the archive no longer holds (lost, or removed from its store): `leaf`, `incidentId` and `version` name it. The feed and the exports stop there rather than skip it.",
  ],
  ["store-busy", 503, "Too many concurrent writers kept winning; nothing was stored. Retry."],
];

const schemaName = (schema: Json | undefined): string => {
  if (!schema) return "";
  if (typeof schema.$ref === "string") return schema.$ref.split("/").pop() ?? "";
  if (Array.isArray(schema.oneOf)) return (schema.oneOf as Json[]).map(schemaName).join(" | ");
  if (schema.type) return String(schema.type);
  return "object";
};

const OperationView: FC<{ method: string; path: string; op: Operation }> = ({ method, path, op }) => (
  <section class="op" id={`${method}-${path}`}>
    <h3>
      <span class={`method ${method}`}>{method.toUpperCase()}</span> <code>{path}</code>
      {op.security?.length ? <span class="lock"> (writers only: Bearer token)</span> : null}
    </h3>
    <p>{op.summary ? inline(op.summary) : null}</p>
    {op.description ? <div class="desc">{block(op.description)}</div> : null}
    {op.parameters?.length ? (
      <table>
        <caption>Parameters</caption>
        <thead>
          <tr>
            <th scope="col">name</th>
            <th scope="col">in</th>
            <th scope="col">type</th>
            <th scope="col">meaning</th>
          </tr>
        </thead>
        <tbody>
          {op.parameters.map((p) => (
            <tr>
              <td>
                <code>{p.name}</code>
                {p.required ? " *" : ""}
              </td>
              <td>{p.in}</td>
              <td>{schemaName(p.schema)}</td>
              <td>{p.description ? inline(p.description) : ""}</td>
            </tr>
          ))}
        </tbody>
      </table>
    ) : null}
    {op.requestBody ? (
      <p>
        Body: <code>{schemaName(Object.values(op.requestBody.content)[0]?.schema)}</code>
      </p>
    ) : null}
    <ul class="responses">
      {Object.entries(op.responses).map(([status, r]) => (
        <li>
          <strong>{status}</strong> {inline(r.description)}
        </li>
      ))}
    </ul>
  </section>
);

export const DocsPage: FC<{ doc: Json }> = ({ doc }) => {
  const paths = doc.paths as Record<string, Record<string, Operation>>;
  const schemas = (doc.components as { schemas: Record<string, Json> }).schemas;
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta
          name="description"
          content="The incident-ledger HTTP API: routes, parameters, answers and schemas, from its OpenAPI 3.1 document."
        />
        <title>incident-ledger API</title>
        <style>{`
          body{font:16px/1.5 system-ui,sans-serif;max-width:60rem;margin:0 auto;padding:1rem;color:#1a1a1a}
          code,pre{font-family:ui-monospace,monospace;font-size:.9em}
          pre{background:#f4f4f4;padding:.75rem;overflow:auto;max-height:24rem}
          .op{border-top:1px solid #ccc;padding:.5rem 0}
          .method{display:inline-block;min-width:3.5rem;text-align:center;border-radius:4px;color:#fff;padding:0 .3rem}
          .get{background:#1f5fa8}.post{background:#1d6b36}
          table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #ccc;padding:.2rem .5rem;text-align:left}
          a{color:#0b4f9c}
        `}</style>
      </head>
      <body>
        <header>
          <h1>incident-ledger API</h1>
          {block((doc.info as { description: string }).description)}
          <p>
            Machine-readable: <a href="/openapi.json">/openapi.json</a> (OpenAPI {String(doc.openapi)}).
          </p>
        </header>
        <main>
          <h2>Routes</h2>
          {Object.entries(paths).flatMap(([path, ops]) =>
            Object.entries(ops).map(([method, op]) => <OperationView method={method} path={path} op={op} />),
          )}
          <h2 id="errors">Problem types</h2>
          <p>
            Every error is <code>application/problem+json</code> (RFC 9457) with <code>type</code>,{" "}
            <code>title</code>, <code>status</code>, <code>detail</code> and, where fields failed,{" "}
            <code>errors: [{"{ path, message }"}]</code>.
          </p>
          <dl>
            {PROBLEMS.map(([slug, status, meaning]) => (
              <>
                <dt id={`problem-${slug}`}>
                  <code>/docs#problem-{slug}</code> ({status})
                </dt>
                <dd>{inline(meaning)}</dd>
              </>
            ))}
          </dl>
          <h2 id="licence">Licence</h2>
          <p>
            {(doc.info as { license?: { name: string } }).license?.name ?? ""}. The operator of this archive
            says here on what terms its records may be reused.
          </p>
          <h2>Schemas</h2>
          {Object.entries(schemas).map(([name, schema]) => (
            <details id={`schema-${name}`}>
              <summary>
                <code>{name}</code>
              </summary>
              <pre>{JSON.stringify(schema, null, 2)}</pre>
            </details>
          ))}
        </main>
      </body>
    </html>
  );
};
