import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type LocalServer, startLocalServer } from "../../functions/local/server.js";
import { type Logger, silentLogger } from "../../functions/logger.js";
import { AP, call, TOKEN } from "../support/archive.js";

export const sha256Of = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex");
export const digestHeader = (bytes: Uint8Array | string) =>
  `sha-256=:${createHash("sha256").update(bytes).digest("base64")}:`;

/** An archive keeping its evidence in a directory the test can look into. */
export async function startEvidenceArchive(
  options: {
    evidenceMax?: number;
    users?: Parameters<typeof startLocalServer>[0]["users"];
    log?: Logger;
  } = {},
): Promise<{ server: LocalServer; dir: string; files: () => string[]; close: () => Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), "ledger-evidence-test-"));
  const server = await startLocalServer({
    port: 0,
    dynamoPort: 0,
    token: TOKEN,
    log: options.log ?? silentLogger,
    writer: "test-writer",
    dataDir,
    ...(options.evidenceMax ? { evidenceMax: options.evidenceMax } : {}),
    ...(options.users ? { users: options.users } : {}),
  });
  const dir = join(dataDir, "evidence");
  return {
    server,
    dir,
    files: () => readdirSync(dir).sort(),
    close: async () => {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function upload(base: string, bytes: Uint8Array | string, headers: Record<string, string> = {}) {
  const response = await fetch(`${base}/evidence`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "text/html", ...headers },
    body: bytes,
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
}

export const capture = (
  bytes: Uint8Array | string,
  extra: Record<string, unknown> = {},
  eventId?: string,
) => ({
  ...(eventId ? { eventId } : {}),
  type: "EvidenceCaptured",
  source: AP,
  data: {
    sha256: sha256Of(bytes),
    size: Buffer.byteLength(bytes),
    mediaType: "text/html",
    kind: "web-page",
    sourceUrl: "https://example.org/article",
    title: "The article as published",
    ...extra,
  },
});

export { call };
