/**
 * The OpenAPI entries of the evidence routes (functions/evidence/evidence-routes.ts, the proof
 * bundle), merged into the document by functions/http/openapi.ts.
 */
type Json = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const problem = (description: string) => ({
  description,
  content: { "application/problem+json": { schema: ref("Problem") } },
});
const tags = ["evidence"];
const ALTERED =
  "`evidence-altered`: the bytes held under this SHA-256 no longer have it (changed where they are kept); nothing of them is served, and the archive logs it. Bytes are checked before an answer carries them (whole, a range, a bundle): for a download once while they stay as written (size and time), for a bundle each time.";
const header = (description: string, schema: Json = { type: "string" }, required = false) => ({
  description,
  required,
  schema,
});
const sha256Path = {
  name: "sha256",
  in: "path",
  required: true,
  description: "The SHA-256 of the bytes, 64 lowercase hex digits.",
  schema: ref("Sha256Hex"),
};
const writers = [{ bearer: [] }];
const stored = (description: string) => ({
  description,
  content: { "application/json": { schema: ref("EvidenceStored") } },
});
const REPR_DIGEST = header("RFC 9530: `sha-256=:<base64>:` of the whole representation.", {
  type: "string",
  pattern: "^sha-256=:[A-Za-z0-9+/]{43}=:$",
});
const BYTES_HEADERS = {
  ETag: header("Strong: the SHA-256 in quotes.", { type: "string", pattern: '^"[0-9a-f]{64}"$' }, true),
  "Repr-Digest": { ...REPR_DIGEST, required: true },
  "Content-Disposition": header('`attachment; filename="<sha256>[.ext]"`.', { type: "string" }, true),
  "Accept-Ranges": header("`bytes`."),
};

export const schemas: Record<string, Json> = {
  EvidenceStored: {
    type: "object",
    required: ["sha256", "size", "mediaType", "href"],
    additionalProperties: false,
    properties: {
      sha256: ref("Sha256Hex"),
      size: { type: "integer", minimum: 1 },
      mediaType: { type: "string", description: "As first uploaded (type and subtype in lowercase)." },
      href: { type: "string", description: "`/evidence/<sha256>`: where the bytes are served." },
    },
  },
  EvidenceUploadRequest: {
    type: "object",
    required: ["sha256", "size", "mediaType"],
    additionalProperties: false,
    properties: {
      sha256: ref("Sha256Hex"),
      size: { type: "integer", minimum: 1 },
      mediaType: { type: "string", example: "video/mp4" },
      access: {
        type: "string",
        enum: ["public", "restricted"],
        description:
          "restricted: the bytes are restricted before they arrive (default public until a restricted capture names them).",
      },
    },
  },
  EvidenceUpload: {
    type: "object",
    required: ["uploadUrl", "headers", "expiresAt"],
    additionalProperties: false,
    properties: {
      uploadUrl: {
        type: "string",
        description:
          "PUT the bytes here with `headers`. In AWS a presigned S3 URL (S3 refuses bytes of another SHA-256); locally a URL of this server (a path when no public origin is configured).",
      },
      headers: { type: "object", additionalProperties: { type: "string" } },
      expiresAt: { type: "string", format: "date-time" },
    },
  },
  EvidenceBytes: { type: "string", format: "binary", description: "The bytes as uploaded." },
};

export const paths: Record<string, Json> = {
  "/evidence": {
    post: {
      operationId: "postEvidence",
      tags,
      summary: "Upload evidence bytes (writers)",
      description:
        "Body: the raw bytes; `Content-Type`: their media type (not a form encoding). Streamed while hashed, never held whole in memory. Up to LEDGER_EVIDENCE_MAX (default 256 MiB) locally; in AWS larger files go through POST /evidence/uploads. An optional `Repr-Digest: sha-256=:<base64>:` is checked. Bytes already held answer 200 with the same body. A client that disconnects mid-body keeps nothing.",
      security: writers,
      parameters: [
        { name: "Repr-Digest", in: "header", required: false, schema: { type: "string" } },
        {
          name: "access",
          in: "query",
          required: false,
          description:
            "restricted: the bytes are restricted before they are held, so no reader without the role gets them before a restricted capture names them (a victim's photo). Access only narrows.",
          schema: { type: "string", enum: ["public", "restricted"] },
        },
      ],
      requestBody: {
        required: true,
        content: { "*/*": { schema: ref("EvidenceBytes") } },
      },
      responses: {
        "201": {
          ...stored("New bytes, now held."),
          headers: { Location: header("`/evidence/<sha256>`.") },
        },
        "200": stored("These bytes were already held: nothing new was kept."),
        "400": problem(
          "An empty body, a malformed Repr-Digest, an access other than public or restricted, or the upload ended early; nothing was kept.",
        ),
        "401": problem("Missing or wrong credentials; nothing was kept."),
        "403": problem("The caller is not a writer; nothing was kept."),
        "413": problem("Over LEDGER_EVIDENCE_MAX; nothing was kept."),
        "415": problem("Content-Type missing, not a media type, or a form encoding; nothing was kept."),
        "422": problem("The bytes' SHA-256 is not the one Repr-Digest declares; nothing was kept."),
      },
    },
  },
  "/evidence/uploads": {
    post: {
      operationId: "postEvidenceUpload",
      tags,
      summary: "Ask for a direct upload of large evidence (writers)",
      description:
        "`{ sha256, size, mediaType }` → where to PUT the bytes. The bytes are known to the archive only once they arrived whole and with that hash and size.",
      security: writers,
      requestBody: {
        required: true,
        content: { "application/json": { schema: ref("EvidenceUploadRequest") } },
      },
      responses: {
        "201": {
          description: "Where and how to PUT the bytes.",
          content: { "application/json": { schema: ref("EvidenceUpload") } },
        },
        "400": problem("The body is not JSON or not UTF-8, or an object repeats a member name."),
        "401": problem("Missing or wrong credentials."),
        "403": problem("The caller is not a writer."),
        "413": problem("The body is over 16 KiB, or `size` is over LEDGER_EVIDENCE_MAX."),
        "422": problem(
          "A field is missing or malformed (problem type `invalid-upload-request`); `errors` names it.",
        ),
      },
    },
  },
  "/evidence/uploads/{sha256}": {
    put: {
      operationId: "putEvidenceUpload",
      tags,
      summary: "This server's direct upload (the URL POST /evidence/uploads gave)",
      description:
        "Sent with the `headers` POST /evidence/uploads gave: their bearer token is good for this one upload (an HMAC of the hash, size, media type and expiry in the query), as a presigned S3 URL's signature is. The bytes must have the SHA-256 and size asked for.",
      security: writers,
      parameters: [
        sha256Path,
        ...["size", "type", "expires"].map((name) => ({
          name,
          in: "query",
          required: true,
          schema: { type: "string" },
        })),
      ],
      requestBody: { required: true, content: { "*/*": { schema: ref("EvidenceBytes") } } },
      responses: {
        "201": stored("The bytes, now held."),
        "200": stored("These bytes were already held."),
        "400": problem("Not a SHA-256, an empty body, or the upload ended early; nothing was kept."),
        "401": problem("Without the upload's bearer token; nothing was kept."),
        "403": problem("A token or URL this server did not make, or an expired one; nothing was kept."),
        "413": problem("More bytes than asked for; nothing was kept."),
        "415": problem("Content-Type is not the one asked for; nothing was kept."),
        "422": problem("The bytes' SHA-256 or size is not the one asked for; nothing was kept."),
      },
    },
  },
  "/evidence/{sha256}": {
    get: {
      operationId: "getEvidence",
      tags,
      summary: "The evidence bytes",
      description:
        "With `Content-Type` (as uploaded), `Content-Length`, `Repr-Digest`, a strong `ETag` and `Content-Disposition: attachment` (captured pages never run on this origin: `Content-Security-Policy: sandbox`). One `Range` works (206; 416 beyond the end); under an `If-Range` that is not the ETag (or is a date) it is ignored and the whole is answered (200). Restricted evidence (bytes a capture with `access: restricted` names) needs a `restricted-reader`, and every such read is recorded (who, what, when) in the archive's log. In AWS the answer is a short-lived redirect (307) to the bucket. Takes no query parameters.",
      security: [],
      parameters: [
        sha256Path,
        { name: "Range", in: "header", required: false, schema: { type: "string" } },
        {
          name: "If-Range",
          in: "header",
          required: false,
          description: "The Range is honoured only when this is the bytes' strong ETag (RFC 9110 §13.1.5).",
          schema: { type: "string" },
        },
      ],
      responses: {
        "200": {
          description: "The bytes.",
          headers: BYTES_HEADERS,
          content: { "*/*": { schema: ref("EvidenceBytes") } },
        },
        "206": {
          description: "The range asked for.",
          headers: {
            ...BYTES_HEADERS,
            "Content-Range": header("`bytes <first>-<last>/<size>`.", { type: "string" }, true),
          },
          content: { "*/*": { schema: ref("EvidenceBytes") } },
        },
        "304": { description: "If-None-Match named this ETag." },
        "307": {
          description: "AWS: a short-lived presigned URL of the bytes.",
          headers: { Location: header("The presigned URL.", { type: "string" }, true) },
        },
        "400": problem("Not a SHA-256 (64 lowercase hex digits), or a query parameter; `errors` names it."),
        "401": problem("Restricted evidence, and no or wrong credentials."),
        "403": problem("Restricted evidence, and the caller is not a restricted-reader."),
        "404": problem("No such bytes are held."),
        "416": {
          description: "The range starts beyond the end.",
          headers: { "Content-Range": header("`bytes */<size>`.", { type: "string" }, true) },
        },
        "500": problem(ALTERED),
      },
    },
  },
  "/incidents/{incidentId}/events/{eventId}/bundle": {
    get: {
      operationId: "getEventProofBundle",
      tags,
      summary: "A proof bundle of one event: a zip a court can keep",
      description:
        "`README.txt` (how to check each piece with sha256sum, openssl ts and `npm run verify -- --proof`), `event.json` (the event as stored), `event.tlog-proof`, `checkpoint.txt` (signed, with cosignatures), `checkpoint-body.txt`, `vkey.txt`, `checkpoint.tsr` (the RFC 3161 response over that checkpoint, where there is one), and `evidence/<sha256>` with `SHA256SUMS`: the bytes the event names (a capture: its own), where there are any; the README lists only the files and checks of this bundle. Restricted bytes only for a restricted-reader. While the event is not yet in a signed checkpoint the answer is 202 with `Retry-After`, as for its proof. Takes no query parameters.",
      security: [],
      parameters: [
        { name: "incidentId", in: "path", required: true, schema: ref("IncidentId") },
        { name: "eventId", in: "path", required: true, schema: { type: "string" } },
      ],
      responses: {
        "200": {
          description: "The zip.",
          headers: { "Content-Disposition": header("`attachment; filename=…-bundle.zip`.") },
          content: { "application/zip": { schema: { type: "string", format: "binary" } } },
        },
        "202": {
          description:
            "The event is stored but not yet in a signed checkpoint: the same answer as its proof's; retry after a second.",
          headers: {
            "Retry-After": header(
              "Seconds to wait before asking again.",
              { type: "string", pattern: "^[0-9]+$" },
              true,
            ),
          },
          content: { "application/json": { schema: ref("EventProofPending") } },
        },
        "400": problem("A query parameter, or a malformed incident id."),
        "404": problem("No such event in this incident."),
        "500": problem(ALTERED),
      },
    },
  },
};
