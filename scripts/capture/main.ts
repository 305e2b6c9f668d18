import "../where-typed.js";
import { readFileSync, statSync } from "node:fs";
import { basename } from "node:path";
import { parseArgs } from "node:util";
import { mediaTypeOfFile } from "../../events/media-types.js";
import { parseEnvelope } from "../../events/validate.js";
import { archiverFacts } from "./auto-archiver.js";
import { captureEnvelope } from "./event.js";
import { hashFile, progress, sendFile } from "./upload.js";
import { PayloadDigestMismatch, readWarcFacts } from "./warc.js";

/**
 * `npm run capture -- <file> --incident <id> [--source-url …] [--kind …] [--title …]
 * [--access public|restricted] [--publisher …] [--media-type …] [--metadata <auto-archiver.json>]`:
 * uploads the file (a direct upload past 4 MiB: API Gateway and Lambda take no larger body), then records its EvidenceCaptured event
 * through the HTTP API (LEDGER_URL, LEDGER_TOKEN). The eventId comes from the incident and the
 * hash, so running it again stores nothing new.
 */
const USAGE =
  "usage: npm run capture -- <file> --incident <id> [--source-url <url>] [--kind <kind>] [--title <text>] [--access public|restricted] [--publisher <name>] [--media-type <type>] [--captured-at <ISO instant>] [--metadata <auto-archiver.json>]";
/** Past this, the bytes go by a direct upload (POST /evidence/uploads), not in one POST. */
const DIRECT_FROM = 4 * 1024 * 1024;

function fail(message: string, code = 2): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

const { values, positionals } = (() => {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        incident: { type: "string" },
        "source-url": { type: "string" },
        kind: { type: "string" },
        title: { type: "string" },
        access: { type: "string" },
        publisher: { type: "string" },
        "media-type": { type: "string" },
        "captured-at": { type: "string" },
        metadata: { type: "string" },
      },
    });
  } catch (error) {
    return fail(`${(error as Error).message}\n${USAGE}`);
  }
})();
const file = positionals[0];
if (!file || positionals.length > 1 || !values.incident) fail(USAGE);
const access = values.access;
if (access !== undefined && access !== "public" && access !== "restricted")
  fail("--access must be public or restricted");
const base = (process.env.LEDGER_URL ?? "http://localhost:3000").replace(/\/$/, "");
const token =
  process.env.LEDGER_TOKEN ?? fail("LEDGER_TOKEN is not set: use the write token `npm start` printed.");
const auth = { authorization: `Bearer ${token}` };

let size: number;
try {
  size = statSync(file).size;
} catch (error) {
  fail(`cannot read ${file}: ${(error as Error).message}`);
}
if (size === 0) fail(`${file} is empty: there is nothing to capture`);
const sha256 = await hashFile(file);
const archiver = values.metadata
  ? (() => {
      try {
        return archiverFacts(JSON.parse(readFileSync(values.metadata, "utf8")), sha256);
      } catch (error) {
        return fail(`${values.metadata}: ${(error as Error).message}`, 1);
      }
    })()
  : null;
const mediaType = values["media-type"] ?? archiver?.mimetype ?? mediaTypeOfFile(file);
const warc = await readWarcFacts(file, values["source-url"] ?? archiver?.url).catch((error: Error) =>
  error instanceof PayloadDigestMismatch
    ? fail(
        `${file}: ${error.message}. The file was damaged or altered after it was written; nothing was uploaded or recorded.`,
        1,
      )
    : fail(`${file} looks like a web archive but could not be read: ${error.message}`, 1),
);
if (warc?.note) process.stderr.write(`note: ${warc.note}\n`);
if (warc?.unmatched) {
  // The digest and date recorded would be another page's, under the URL given: never recorded so.
  const { uri, targets, responses } = warc.unmatched;
  const more = responses > targets.length ? `, and ${responses - targets.length} more` : "";
  const held =
    responses === 0
      ? "it holds no response record"
      : `its response records are of ${targets.join(", ")}${more}`;
  const given = values["source-url"]
    ? "--source-url; give the page's URL as the WARC writes it (WARC-Target-URI), or leave --source-url out to record its first response"
    : `the url in ${values.metadata}; give --source-url with the page's URL as the WARC writes it (WARC-Target-URI)`;
  fail(
    `${file}: no response record in it is of ${uri}: ${held}. It came from ${given}. Nothing was uploaded or recorded.`,
  );
}
// Another record damaged is said, not refused: the file is kept as the bytes captured, and the
// capture's own record checks. Whoever relies on the rest of the archive should know.
for (const damaged of warc?.others?.damaged ?? [])
  process.stderr.write(
    `warning: ${damaged.message}: that record was damaged or altered after the crawler wrote it (the capture's own record checks)\n`,
  );

async function answerOf(response: Response | { status: number; text: string }) {
  const text =
    "text" in response && typeof response.text === "string"
      ? response.text
      : await (response as Response).text();
  try {
    return { status: response.status, body: JSON.parse(text) as Record<string, unknown> };
  } catch {
    return { status: response.status, body: { detail: text } };
  }
}

// Everything that can be checked before the bytes leave: the event's fields by the API's rules,
// and the incident it goes to. Bytes uploaded for a capture that is then refused would stay held (and,
// unless restricted, readable by anyone) with no event naming them.
let envelope: ReturnType<typeof captureEnvelope>;
try {
  envelope = captureEnvelope({
    incidentId: values.incident as string,
    sha256,
    size,
    mediaType,
    tool: { tool: "incident-ledger capture" },
    warc,
    archiver,
    ...(values["source-url"] ? { sourceUrl: values["source-url"] } : {}),
    ...(values.kind ? { kind: values.kind } : {}),
    ...(values.title ? { title: values.title } : {}),
    ...(access ? { access } : {}),
    ...(values.publisher ? { publisher: values.publisher } : {}),
    ...(values["captured-at"] ? { capturedAt: values["captured-at"] } : {}),
  });
} catch (error) {
  fail((error as Error).message);
}
// The API's own field rules, as the server will apply them: a refusal names the option to fix.
const fields = parseEnvelope(envelope);
if (!fields.ok)
  fail(
    `the capture would be refused, so nothing was uploaded:${fields.errors.map((e) => `\n  ${e.path}: ${e.message}`).join("")}`,
  );
const incidentPath = `${base}/incidents/${encodeURIComponent(values.incident as string)}`;
// Its events, not its summary: the events are there at once, where a view may lag (in AWS).
const incident = await fetch(`${incidentPath}/events?limit=1`, { headers: auth }).catch((error: Error) =>
  fail(`cannot reach ${base}: ${error.message}. Is \`npm start\` running?`, 1),
);
if (incident.status === 404)
  fail(
    `no incident ${JSON.stringify(values.incident)} in the archive at ${base}: open it first (IncidentOpened); nothing was uploaded`,
    1,
  );
if (!incident.ok) {
  const { status, body } = await answerOf(incident);
  fail(`the incident could not be read (${status}): ${body.detail ?? ""}; nothing was uploaded`, 1);
}
await incident.body?.cancel();

// The bytes: in one POST, or by the direct upload the archive hands out.
const bar = progress(`uploading ${basename(file)}`, size);
let uploaded: { status: number; body: Record<string, unknown> };
try {
  if (size <= DIRECT_FROM) {
    uploaded = await answerOf(
      await sendFile(
        // Restricted bytes are restricted as they arrive, not once the capture names them.
        new URL(`${base}/evidence${access === "restricted" ? "?access=restricted" : ""}`),
        "POST",
        {
          ...auth,
          "content-type": mediaType,
          "repr-digest": `sha-256=:${Buffer.from(sha256, "hex").toString("base64")}:`,
        },
        file,
        size,
        bar.tick,
      ),
    );
  } else {
    const asked = await answerOf(
      await fetch(`${base}/evidence/uploads`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({ sha256, size, mediaType, ...(access ? { access } : {}) }),
      }),
    );
    if (asked.status !== 201)
      fail(`POST /evidence/uploads answered ${asked.status}: ${asked.body.detail}`, 1);
    const { uploadUrl, headers } = asked.body as { uploadUrl: string; headers: Record<string, string> };
    // The headers as given: they carry what the upload needs (S3's checksum, or this server's
    // one-upload token); the writer's own token never goes to a presigned URL.
    const sent = await sendFile(new URL(uploadUrl, `${base}/`), "PUT", headers, file, size, bar.tick);
    // S3 answers a PUT with an empty 200; this server with the stored blob.
    uploaded = sent.status === 200 && sent.text === "" ? { status: 200, body: {} } : await answerOf(sent);
  }
} catch (error) {
  bar.end();
  fail(`cannot reach ${base}: ${(error as Error).message}. Is \`npm start\` running?`, 1);
}
bar.end();
if (uploaded.status !== 200 && uploaded.status !== 201)
  fail(
    `the upload was refused (${uploaded.status}): ${uploaded.body.detail ?? JSON.stringify(uploaded.body)}`,
    1,
  );
process.stderr.write(`${uploaded.status === 201 ? "uploaded" : "already held"}: ${sha256} (${size} bytes)\n`);

const appended = await answerOf(
  await fetch(`${incidentPath}/events`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify(envelope),
  }),
);
if (appended.status !== 200 && appended.status !== 201) {
  const errors = (appended.body.errors as { path: string; message: string }[] | undefined) ?? [];
  fail(
    `the capture was refused (${appended.status}): ${appended.body.detail}${errors.map((e) => `\n  ${e.path}: ${e.message}`).join("")}`,
    1,
  );
}
process.stdout.write(
  `${JSON.stringify({
    status: appended.status === 201 ? "recorded" : "already recorded",
    eventId: envelope.eventId,
    sha256,
    size,
    mediaType,
    incidentId: values.incident,
    version: appended.body.version,
    ...(warc?.others
      ? { otherRecords: { checked: warc.others.checked, damaged: warc.others.damaged.length } }
      : {}),
  })}\n`,
);
