import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const openssl = (args: string[], cwd: string) => run("openssl", args, { cwd });

/**
 * A real RFC 3161 time-stamping authority for tests: Debian's `openssl ts -reply` behind a tiny
 * HTTP endpoint on a free port. Its CA and TSA keys are made at test time in a temporary
 * directory (no key is ever committed); the TSA certificate carries the critical
 * `timeStamping` extended key usage, which `openssl ts -verify` (and RFC 3161) require.
 */
export interface LocalTsa {
  url: string;
  /** The test CA's certificate (PEM file) and the TSA's, for `openssl ts -verify`. */
  caFile: string;
  tsaCertFile: string;
  caPem: string;
  dir: string;
  /** Queries received so far (DER), in order, and when each request arrived (epoch ms). */
  queries: Uint8Array[];
  arrivals: number[];
  /** Answers sent (DER), in order. */
  replies: Uint8Array[];
  /** `normal` answers; `silent` reads each query and never answers (a TSA that hangs). */
  mode: "normal" | "silent";
  close(): Promise<void>;
}

export async function startLocalTsa(
  options: { name?: string; mode?: "normal" | "silent" } = {},
): Promise<LocalTsa> {
  const dir = await mkdtemp(join(tmpdir(), "local-tsa-"));
  const name = options.name ?? "Test";
  await writeFile(
    join(dir, "ca.ext"),
    "basicConstraints = critical, CA:TRUE\nkeyUsage = critical, keyCertSign, cRLSign\nsubjectKeyIdentifier = hash\n",
  );
  await writeFile(
    join(dir, "tsa.ext"),
    [
      "basicConstraints = critical, CA:FALSE",
      "keyUsage = critical, digitalSignature, nonRepudiation",
      "extendedKeyUsage = critical, timeStamping",
      "subjectKeyIdentifier = hash",
      "authorityKeyIdentifier = keyid",
      "",
    ].join("\n"),
  );
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];
  await openssl(
    ["req", "-x509", ...ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", `/CN=${name} CA`],
    dir,
  );
  await openssl(["req", ...ec, "-keyout", "tsa.key", "-out", "tsa.csr", "-subj", `/CN=${name} TSA`], dir);
  await openssl(
    [
      "x509",
      "-req",
      "-in",
      "tsa.csr",
      "-CA",
      "ca.pem",
      "-CAkey",
      "ca.key",
      "-set_serial",
      "2",
      "-days",
      "2",
      "-extfile",
      "tsa.ext",
      "-out",
      "tsa.pem",
    ],
    dir,
  );
  await writeFile(join(dir, "tsaserial"), "01\n");
  await writeFile(
    join(dir, "tsa.cnf"),
    [
      "[ tsa ]",
      "default_tsa = tsa_config",
      "[ tsa_config ]",
      `dir = ${dir}`,
      "serial = $dir/tsaserial",
      "crypto_device = builtin",
      "signer_cert = $dir/tsa.pem",
      "certs = $dir/tsa.pem",
      "signer_key = $dir/tsa.key",
      "signer_digest = sha256",
      "default_policy = 1.3.6.1.4.1.99999.1",
      "digests = sha256, sha384, sha512",
      "accuracy = secs:1",
      "ordering = no",
      "tsa_name = yes",
      "ess_cert_id_chain = no",
      "ess_cert_id_alg = sha256",
      "",
    ].join("\n"),
  );

  const queries: Uint8Array[] = [];
  const replies: Uint8Array[] = [];
  // openssl increments its serial file per reply: one reply at a time.
  let queue: Promise<unknown> = Promise.resolve();
  let count = 0;
  const reply = (query: Uint8Array): Promise<Uint8Array> => {
    const n = count++;
    const next = queue.then(async () => {
      const q = join(dir, `q${n}.tsq`);
      const r = join(dir, `r${n}.tsr`);
      await writeFile(q, query);
      await openssl(["ts", "-reply", "-config", "tsa.cnf", "-queryfile", q, "-out", r], dir);
      return new Uint8Array(await readFile(r));
    });
    queue = next.catch(() => undefined);
    return next;
  };

  const tsa: LocalTsa = {
    url: "",
    caFile: join(dir, "ca.pem"),
    tsaCertFile: join(dir, "tsa.pem"),
    caPem: await readFile(join(dir, "ca.pem"), "utf8"),
    dir,
    queries,
    arrivals: [],
    replies,
    mode: options.mode ?? "normal",
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await queue;
      await rm(dir, { recursive: true, force: true });
    },
  };
  const server: Server = createServer((req, res) => {
    tsa.arrivals.push(Date.now());
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const query = new Uint8Array(Buffer.concat(chunks));
      queries.push(query);
      if (tsa.mode === "silent") return;
      if (req.method !== "POST" || req.headers["content-type"] !== "application/timestamp-query") {
        res.writeHead(415).end();
        return;
      }
      try {
        const der = await reply(query);
        replies.push(der);
        res.writeHead(200, { "content-type": "application/timestamp-reply" }).end(der);
      } catch (error) {
        res.writeHead(500, { "content-type": "text/plain" }).end(String(error));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  tsa.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/tsa`;
  return tsa;
}

/** A URL on which nothing listens (a TSA that is down): a port taken, then let go. */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/tsa`;
}

/** `openssl ts -verify` of a response over a digest: its exit code and output. */
export async function opensslVerify(
  tsa: Pick<LocalTsa, "caFile" | "tsaCertFile" | "dir">,
  response: Uint8Array,
  digestHex: string,
): Promise<{ ok: boolean; output: string }> {
  const file = join(tsa.dir, `check-${Date.now()}-${Math.random().toString(36).slice(2)}.tsr`);
  await writeFile(file, response);
  try {
    const { stdout, stderr } = await openssl(
      [
        "ts",
        "-verify",
        "-digest",
        digestHex,
        "-in",
        file,
        "-CAfile",
        tsa.caFile,
        "-untrusted",
        tsa.tsaCertFile,
      ],
      tsa.dir,
    );
    return { ok: true, output: `${stdout}${stderr}` };
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string };
    return { ok: false, output: `${e.stdout ?? ""}${e.stderr ?? ""}` };
  }
}
