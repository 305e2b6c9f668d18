/**
 * The OpenAPI entries of the transparency log's routes (issue 11, functions/http/routes/log.ts),
 * merged into the document by functions/http/openapi.ts. Every answer, errors included, has its type.
 */
type Json = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const problem = (description: string) => ({
  description,
  content: { "application/problem+json": { schema: ref("Problem") } },
});
const text = (schema: string, description: string, headers?: Json) => ({
  description,
  content: { "text/plain": { schema: ref(schema) } },
  ...(headers ? { headers } : {}),
});
const bytes = (description: string) => ({
  description,
  headers: {
    "Cache-Control": {
      description: "Full tiles: `public, max-age=31536000, immutable`. Partial ones: an hour.",
      schema: { type: "string" },
    },
  },
  content: { "application/octet-stream": { schema: ref("LogTileBytes") } },
});
const tags = ["Transparency log"];
const unknownQuery = problem("A query parameter this route does not take; `errors` names each.");
const noCheckpoint = problem("The log has no signed checkpoint yet.");
const tileIndex = {
  name: "N",
  in: "path",
  required: true,
  description:
    "The tile index in tlog-tiles form: 3-digit groups, all but the last prefixed with x (`x001/x234/067`). A trailing `.p/W` asks for the partial tile of width W (1–255).",
  schema: { type: "string", pattern: "^(x[0-9]{3}/)*[0-9]{3}(\\.p/[1-9][0-9]{0,2})?$" },
};

export const schemas: Record<string, Json> = {
  SignedCheckpoint: {
    type: "string",
    description:
      "A signed note (c2sp.org/signed-note) whose text is a c2sp.org/tlog-checkpoint: origin, tree size, base64 root, each line ending in \\n; a blank line; then `— <name> <base64(key id ‖ signature)>` lines — the log's Ed25519 signature and any witness cosignatures (cosignature/v1).",
    example:
      "localhost/incident-ledger\n3\nq0bGXkVv5pVDhVvwEdsEH3ZgxVl9RAsM3VpBcn9WvAo=\n\n— localhost/incident-ledger sOUy9Q…\n",
  },
  VerifierKey: {
    type: "string",
    description: "`<name>+<8 hex digits of key id>+<base64(0x01 ‖ 32-byte Ed25519 public key)>`.",
    pattern: "^[^+\\s]+\\+[0-9a-f]{8}\\+[A-Za-z0-9+/]+=*\\n?$",
  },
  LogTileBytes: {
    type: "string",
    format: "binary",
    description:
      "A hash tile (32-byte hashes, 256 of them when full) or an entry bundle (each leaf prefixed with its big-endian uint16 length), as c2sp.org/tlog-tiles lays them out.",
  },
  TlogProofFile: {
    type: "string",
    description:
      "A c2sp.org/tlog-proof@v1 file: the header, `extra <base64 of the leaf text>`, `index N`, the inclusion proof (one base64 hash a line), a blank line, the signed checkpoint.",
  },
  EventProof: {
    type: "object",
    required: ["index", "leaf", "treeSize", "inclusion", "checkpoint"],
    properties: {
      index: { type: "integer", minimum: 0, description: "The event's leaf index in the log." },
      leaf: {
        type: "string",
        description: 'The leaf text: RFC 8785 JSON of {"eventId","hash","incidentId","version"}.',
      },
      treeSize: { type: "integer", minimum: 1, description: "The size of the checkpoint's tree." },
      inclusion: {
        type: "array",
        items: { type: "string", contentEncoding: "base64" },
        description: "RFC 9162 inclusion proof, from the leaf's sibling up.",
      },
      checkpoint: ref("SignedCheckpoint"),
    },
  },
  EventProofPending: {
    type: "object",
    required: ["status", "detail", "incidentId", "eventId", "version", "index"],
    properties: {
      status: { const: "pending" },
      detail: { type: "string" },
      incidentId: { type: "string" },
      eventId: { type: "string" },
      version: { type: "integer", minimum: 1 },
      index: {
        type: ["integer", "null"],
        description: "Its leaf index once sequenced (then waiting for a checkpoint), else null.",
      },
    },
  },
  ConsistencyProof: {
    type: "object",
    required: ["from", "to", "proof"],
    properties: {
      from: { type: "integer", minimum: 0 },
      to: { type: "integer", minimum: 0 },
      proof: {
        type: "array",
        items: { type: "string", contentEncoding: "base64" },
        description:
          "RFC 9162 consistency proof from tree size `from` to `to` (empty when from is 0 or equals to).",
      },
    },
  },
  // ── Trusted time (issue 21) ──
  LogTimestamp: {
    type: "object",
    required: ["treeSize", "checkpoint", "genTime", "tsa", "href"],
    properties: {
      treeSize: {
        type: "integer",
        minimum: 1,
        description: "The tree size of the checkpoint the token is over.",
      },
      checkpoint: {
        type: "string",
        description:
          "The checkpoint's body (the note text before the blank line: origin, size and root lines, each ending in \\n). The token's message imprint is the SHA-256 of these bytes.",
      },
      genTime: {
        type: "string",
        format: "date-time",
        description: "The token's genTime: when the TSA says it saw the imprint.",
      },
      tsa: { type: "string", description: "The URL of the RFC 3161 authority that issued the token." },
      href: {
        type: "string",
        description: "Where the DER time-stamp response is served (`/log/timestamps/{treeSize}`).",
      },
    },
  },
  LogTimestampList: {
    type: "object",
    required: ["items"],
    properties: {
      items: { type: "array", items: ref("LogTimestamp"), maxItems: 100 },
      nextCursor: {
        type: "string",
        description: "Present only while older tokens follow: pass it as `cursor` for the next page.",
      },
    },
  },
  LogTimestampReply: {
    type: "string",
    format: "binary",
    description:
      "An RFC 3161 TimeStampResp (DER), exactly as the TSA sent it: check it with `openssl ts -verify -digest <sha256 of the checkpoint body> -in <file> -CAfile <the TSA's CA>`.",
  },
};

export const paths: Record<string, Json> = {
  "/log/checkpoint": {
    get: {
      operationId: "getLogCheckpoint",
      tags,
      summary: "The latest signed checkpoint of the log",
      description:
        "Tree sizes never go back; two checkpoints never contradict each other. Witness cosignatures, when witnesses are configured, are further signature lines. Takes no query parameters.",
      security: [],
      responses: {
        "200": text("SignedCheckpoint", "The signed checkpoint (text/plain)."),
        "400": unknownQuery,
        "404": noCheckpoint,
      },
    },
  },
  "/log/vkey": {
    get: {
      operationId: "getLogVerifierKey",
      tags,
      summary: "The log's verifier key (signed-note vkey)",
      description:
        "The key that checks the log's signature on every checkpoint, in the form a signed-note verifier takes. Keep it apart from the server (the start-up banner prints it) so that a checkpoint signed by any other key is refused. Takes no query parameters.",
      security: [],
      responses: {
        "200": text("VerifierKey", "The verifier key (text/plain)."),
        "400": unknownQuery,
        "404": problem("This archive has no log key configured."),
      },
    },
  },
  "/log/tile/{L}/{N}": {
    get: {
      operationId: "getLogHashTile",
      tags,
      summary: "A hash tile of the log (c2sp.org/tlog-tiles)",
      description:
        "Level-L hashes of the Merkle tree, 256 to a full tile, as c2sp.org/tlog-tiles lays them out: a verifier reads proofs and roots from tiles without asking the server to compute anything. A full tile never changes; a partial one (`.p/W`) is served up to the width of the latest checkpoint's tree. Takes no query parameters.",
      security: [],
      parameters: [
        {
          name: "L",
          in: "path",
          required: true,
          description: "The tile level (0: leaf hashes).",
          schema: { type: "integer", minimum: 0, maximum: 63 },
        },
        tileIndex,
      ],
      responses: {
        "200": bytes("The tile's hashes."),
        "400": problem("Not a tile path, or an unknown query parameter; `errors` names it."),
        "404": problem("The tile (at this width) is beyond the tree of the latest checkpoint."),
      },
    },
  },
  "/log/tile/entries/{N}": {
    get: {
      operationId: "getLogEntryBundle",
      tags,
      summary: "An entry bundle of the log: the leaves themselves (c2sp.org/tlog-tiles)",
      description:
        "Up to 256 leaves, each the RFC 8785 JSON of an event's incidentId, version, eventId and hash, prefixed with its big-endian uint16 length. A full bundle never changes. Takes no query parameters.",
      security: [],
      parameters: [tileIndex],
      responses: {
        "200": bytes("The leaves, each prefixed with its big-endian uint16 length."),
        "400": problem("Not a tile path, or an unknown query parameter; `errors` names it."),
        "404": problem("The bundle (at this width) is beyond the tree of the latest checkpoint."),
      },
    },
  },
  "/incidents/{incidentId}/events/{eventId}/proof": {
    get: {
      operationId: "getEventInclusionProof",
      tags,
      summary: "Proof that an event is in the log: its leaf and an inclusion proof in the signed checkpoint",
      description:
        "The event's leaf text and an RFC 9162 inclusion proof of it in the tree of the latest signed checkpoint (its full text). An acknowledged event enters the log within seconds: until then the answer is 202 with `Retry-After`, or, with `wait=true`, the route waits up to 10 s for it. Takes only `wait`.",
      security: [],
      parameters: [
        { name: "incidentId", in: "path", required: true, schema: ref("IncidentId") },
        { name: "eventId", in: "path", required: true, schema: { type: "string" } },
        {
          name: "wait",
          in: "query",
          required: false,
          schema: { type: "boolean" },
          description:
            "Wait (up to 10 s) until the event is in a signed checkpoint instead of answering 202.",
        },
      ],
      responses: {
        "200": {
          description: "The proof.",
          content: { "application/json": { schema: ref("EventProof") } },
        },
        "202": {
          description: "The event is stored but not yet in a signed checkpoint; retry after a second.",
          headers: {
            "Retry-After": {
              description: "Seconds to wait before asking again.",
              required: true,
              schema: { type: "string", pattern: "^[0-9]+$" },
            },
          },
          content: { "application/json": { schema: ref("EventProofPending") } },
        },
        "400": problem("`wait` is not true/false, or an unknown query parameter; `errors` names it."),
        "404": problem("No such event in this incident."),
      },
    },
  },
  "/log/proof/{index}": {
    get: {
      operationId: "getLogProofFile",
      tags,
      summary: "The inclusion proof of one leaf as a c2sp.org/tlog-proof@v1 file",
      description:
        "The same proof as the event's proof route, as a file that `npm run verify -- --proof <file>` and other tlog tooling check offline: the leaf text as `extra`, the index, the inclusion proof and the signed checkpoint. Takes no query parameters.",
      security: [],
      parameters: [
        {
          name: "index",
          in: "path",
          required: true,
          description: "The leaf index, a whole number below the latest checkpoint's tree size.",
          schema: { type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
        },
      ],
      responses: {
        "200": text("TlogProofFile", "The proof file (text/plain; saved as leaf-N.tlog-proof)."),
        "400": problem("The index is not a whole number, or an unknown query parameter; `errors` names it."),
        "404": problem("No leaf at this index in the latest checkpoint's tree."),
      },
    },
  },
  "/log/consistency": {
    get: {
      operationId: "getLogConsistencyProof",
      tags,
      summary: "Proof that the tree of size `to` extends the tree of size `from`",
      description:
        "An RFC 9162 consistency proof: a verifier holding a checkpoint of size `from` checks that the log only grew since. `from` is required; `to` defaults to the latest checkpoint's size and may not exceed it. Takes only `from` and `to`.",
      security: [],
      parameters: [
        {
          name: "from",
          in: "query",
          required: true,
          schema: { type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
          description: "The tree size you hold.",
        },
        {
          name: "to",
          in: "query",
          required: false,
          schema: { type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
          description: "Default: the latest checkpoint's size.",
        },
      ],
      responses: {
        "200": {
          description: "The consistency proof.",
          content: { "application/json": { schema: ref("ConsistencyProof") } },
        },
        "400": problem(
          "`from` missing or beyond `to`, `to` beyond the latest checkpoint, not a number, or an unknown parameter; `errors` names it.",
        ),
        "404": noCheckpoint,
      },
    },
  },
  // ── Trusted time (issue 21) ──
  "/log/timestamps": {
    get: {
      operationId: "listLogTimestamps",
      tags,
      summary: "RFC 3161 time-stamp tokens over the log's checkpoints, newest first",
      description:
        'When the archive is configured with a time-stamping authority (LEDGER_TSA_URL), it asks for a token over each new checkpoint (at most one a minute, never more than five minutes without one while the log grows). Each entry names the checkpoint body the token is over, its genTime, the TSA, and `href` to the DER response. While older tokens follow, the page has `nextCursor` (and a `Link: <…>; rel="next"` header). Takes only `limit` and `cursor`.',
      security: [],
      parameters: [
        {
          name: "limit",
          in: "query",
          required: false,
          schema: { type: "integer", minimum: 1, maximum: 100, default: 100 },
          description: "Page size.",
        },
        {
          name: "cursor",
          in: "query",
          required: false,
          schema: { type: "string", pattern: "^[1-9][0-9]{0,15}$" },
          description: "`nextCursor` of the previous page, unchanged.",
        },
      ],
      responses: {
        "200": {
          description: "A page of tokens (empty when no TSA is configured or none was obtained yet).",
          headers: {
            Link: {
              description: 'The next page, while one follows: `<URL>; rel="next"`.',
              schema: { type: "string" },
            },
          },
          content: { "application/json": { schema: ref("LogTimestampList") } },
        },
        "400": problem(
          "`limit` is not a number from 1 to 100, `cursor` is not one the archive gave out, or another query parameter was given; `errors` names it.",
        ),
      },
    },
  },
  "/log/timestamps/{treeSize}": {
    get: {
      operationId: "getLogTimestamp",
      tags,
      summary: "The DER time-stamp response over one checkpoint",
      description:
        "The RFC 3161 TimeStampResp the TSA sent for the checkpoint of this tree size (`application/timestamp-reply`). Its message imprint is the SHA-256 of the checkpoint body listed by GET /log/timestamps. Takes no query parameters.",
      security: [],
      parameters: [
        {
          name: "treeSize",
          in: "path",
          required: true,
          schema: { type: "integer", minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
          description: "The checkpoint's tree size.",
        },
      ],
      responses: {
        "200": {
          description: "The DER response.",
          headers: {
            "Cache-Control": { description: "A token never changes: immutable.", schema: { type: "string" } },
          },
          content: { "application/timestamp-reply": { schema: ref("LogTimestampReply") } },
        },
        "400": problem(
          "The tree size is not a whole number from 1, or an unknown query parameter; `errors` names it.",
        ),
        "404": problem("No token over a checkpoint of this tree size."),
      },
    },
  },
};
