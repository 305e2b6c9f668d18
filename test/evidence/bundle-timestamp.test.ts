import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalBlobStore } from "../../functions/evidence/local-blob-store.js";
import { checkpointBody } from "../../functions/evidence/proof-bundle.js";
import { bearerToken } from "../../functions/http/auth.js";
import { openApiDocument } from "../../functions/http/openapi.js";
import { createLedger } from "../../functions/ledger.js";
import { silentLogger } from "../../functions/logger.js";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import { casualties, opened, post, TOKEN } from "../support/archive.js";
import { capture, startEvidenceArchive, upload } from "./evidence-kit.js";

/**
 * The bundle's RFC 3161 response, when the ledger is given a `timestampFor` (the trusted-time
 * part's store): a real token from `openssl ts -reply` over the checkpoint's body, which
 * `openssl ts -verify` then accepts from the unzipped bundle, as its README says.
 */
const work = mkdtempSync(join(tmpdir(), "ledger-bundle-tsa-"));
const ssl = (...args: string[]) => execFileSync("openssl", args, { cwd: work, stdio: "pipe" });
let archive: Awaited<ReturnType<typeof startEvidenceArchive>>;

beforeAll(async () => {
  archive = await startEvidenceArchive();
  // A test CA and a TSA certificate with the critical timeStamping extended key usage.
  ssl(
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    "ca.key",
    "-out",
    "ca.pem",
    "-subj",
    "/CN=Test TSA CA",
    "-days",
    "2",
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign",
  );
  ssl(
    "req",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    "tsa.key",
    "-out",
    "tsa.csr",
    "-subj",
    "/CN=Test TSA",
  );
  writeFileSync(
    join(work, "ext.cnf"),
    "extendedKeyUsage=critical,timeStamping\nkeyUsage=critical,digitalSignature\n",
  );
  ssl(
    "x509",
    "-req",
    "-in",
    "tsa.csr",
    "-CA",
    "ca.pem",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-out",
    "tsa.pem",
    "-days",
    "2",
    "-extfile",
    "ext.cnf",
  );
  writeFileSync(join(work, "serial"), "01\n");
  writeFileSync(
    join(work, "ts.cnf"),
    [
      "[ tsa ]",
      "default_tsa = tsa1",
      "[ tsa1 ]",
      `serial = ${join(work, "serial")}`,
      "crypto_device = builtin",
      `signer_cert = ${join(work, "tsa.pem")}`,
      `signer_key = ${join(work, "tsa.key")}`,
      "signer_digest = sha256",
      "default_policy = 1.2.3.4.1",
      "digests = sha256",
      "accuracy = secs:1",
      "ess_cert_id_alg = sha256",
      "",
    ].join("\n"),
  );
});
afterAll(async () => {
  await archive.close();
  rmSync(work, { recursive: true, force: true });
});

describe("a proof bundle with an RFC 3161 response", () => {
  it("carries the token over its checkpoint, and openssl ts -verify accepts it", async () => {
    const base = archive.server.url;
    expect((await post(base, "bundle-tsa", opened())).status).toBe(201);
    expect((await upload(base, "<html>timestamped</html>")).status).toBe(201);
    expect(
      (await post(base, "bundle-tsa", capture("<html>timestamped</html>", {}, "tsa-capture"))).status,
    ).toBe(201);
    expect((await fetch(`${base}/incidents/bundle-tsa/events/tsa-capture/proof?wait=true`)).status).toBe(200);
    const checkpoint = await (await fetch(`${base}/log/checkpoint`)).text();
    const size = Number(checkpoint.split("\n")[1]);
    writeFileSync(join(work, "body.txt"), checkpointBody(checkpoint));
    ssl("ts", "-query", "-data", "body.txt", "-sha256", "-cert", "-out", "req.tsq");
    ssl("ts", "-reply", "-config", "ts.cnf", "-queryfile", "req.tsq", "-out", "resp.tsr");
    const der = new Uint8Array(readFileSync(join(work, "resp.tsr")));
    // The log grows past the time-stamped checkpoint: the bundle still proves the event in the
    // tree the token covers, not in the newest one.
    expect(
      (await post(base, "bundle-tsa", casualties({ killed: { value: 3, qualifier: "exact" } }))).status,
    ).toBe(201);
    await expect
      .poll(async () => Number((await (await fetch(`${base}/log/checkpoint`)).text()).split("\n")[1]), {
        timeout: 10_000,
      })
      .toBeGreaterThan(size);

    // A second front over the same tables, given the timestamps (as the trusted-time part will be).
    const ledger = createLedger({
      db: createDynamoClient(archive.server.dynamoEndpoint),
      tables: archive.server.tables,
      log: silentLogger,
      logVerifierKey: async () => archive.server.logSigner.vkey,
      evidence: { store: await LocalBlobStore.open(archive.dir), log: silentLogger },
      timestampCovering: async (leaves) =>
        leaves <= size ? { treeSize: size, token: der, tsa: "http://tsa.test/tsr" } : null,
    });
    const app = ledger.app(bearerToken(TOKEN, "w"), { openApi: openApiDocument(), groups: ["data"] });
    const answer = await app.request("/incidents/bundle-tsa/events/tsa-capture/bundle");
    expect(answer.status).toBe(200);
    writeFileSync(join(work, "bundle.zip"), Buffer.from(await answer.arrayBuffer()));
    execFileSync("unzip", ["-q", "bundle.zip", "-d", "bundle"], { cwd: work });
    const dir = join(work, "bundle");
    expect(readFileSync(join(dir, "checkpoint.tsr"))).toEqual(Buffer.from(der));
    expect(readFileSync(join(dir, "checkpoint.txt"), "utf8").split("\n")[1]).toBe(String(size));
    expect(readFileSync(join(dir, "checkpoint-body.txt"), "utf8")).toBe(checkpointBody(checkpoint));
    const readme = readFileSync(join(dir, "README.txt"), "utf8");
    expect(readme).toContain("openssl ts -verify -in checkpoint.tsr -data checkpoint-body.txt");
    expect(readme).toContain("from http://tsa.test/tsr:");
    // The README's own check that the token's body is the checkpoint the proof is in, typed as
    // it says: silent on this bundle, and failing on one whose body was swapped for another tree's.
    const same = /^\s*(awk .* \| cmp - checkpoint-body\.txt)$/m.exec(readme)?.[1] as string;
    expect(same, readme).toBeDefined();
    expect(spawnSync("sh", ["-c", same], { cwd: dir, encoding: "utf8" })).toMatchObject({
      status: 0,
      stdout: "",
    });
    const swapped = join(work, "swapped");
    cpSync(dir, swapped, { recursive: true });
    writeFileSync(
      join(swapped, "checkpoint-body.txt"),
      checkpointBody(checkpoint).replace(`\n${size}\n`, "\n1\n"),
    );
    expect(spawnSync("sh", ["-c", same], { cwd: swapped, encoding: "utf8" }).status).toBe(1);
    const verified = execFileSync(
      "openssl",
      [
        "ts",
        "-verify",
        "-in",
        "checkpoint.tsr",
        "-data",
        "checkpoint-body.txt",
        "-CAfile",
        join(work, "ca.pem"),
      ],
      { cwd: dir, encoding: "utf8" },
    );
    expect(verified).toContain("Verification: OK");
  });
});
