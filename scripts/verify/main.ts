import "../where-typed.js";
import { existsSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import type { StoredEvent } from "../../events/stored-event.js";
import { parseVerifierKey, type VerifierKey } from "../../events/transparency/note.js";
import { type Policy, parsePolicy } from "../../events/transparency/policy.js";
import { VerificationError } from "./checks.js";
import { describeRebuild, rebuildRelease } from "./rebuild-exports.js";
import { httpSource, reasonOf } from "./source.js";
import { readState, writeState } from "./state.js";
import { verifyDisclosures } from "./verify-disclosures.js";
import { verifyEvidence } from "./verify-evidence.js";
import { verifyLog } from "./verify-log.js";
import { verifyEventProof } from "./verify-proof.js";
import { verifyTimestamps } from "./verify-timestamps.js";

/**
 * npm run verify -- --url <base> --vkey <vkey> [--state <file> [--incremental]] [--policy <file>] [--tsa-ca <pem>]
 * npm run verify -- --proof <file> --event <event.json> --vkey <vkey> [--policy <file>]
 * npm run verify -- --url <base> --release <name> --vkey <vkey> [--policy <file>]
 * npm run verify -- --url <base> --disclosures <file> [--vkey <vkey> …]
 * Exit 0 when everything holds; 1 naming the first thing that does not; 2 for a usage error.
 */
const USAGE = `usage:
  npm run verify -- --url <base URL> --vkey <verifier key or file> [--state <file> [--incremental]] [--policy <file>] [--tsa-ca <CA PEM file>]
  npm run verify -- --proof <proof file> --event <event.json> --vkey <verifier key or file> [--policy <file>]
  npm run verify -- --url <base URL> --release <name> --vkey <verifier key or file> [--policy <file>]
  npm run verify -- --url <base URL> --disclosures <disclosures.ndjson> [--vkey <verifier key or file> …]
  npm run verify -- --url <base URL> --evidence [--vkey <verifier key or file> …]`;

class UsageError extends Error {}

/** A vkey given inline or as a file holding it. */
function readKey(value: string): VerifierKey {
  const inline = value.includes("+");
  if (!inline && !existsSync(value))
    throw new UsageError(`--vkey ${value}: no such file, and not a verifier key (<name>+<key id>+<key>)`);
  const text = inline ? value : readFileSync(value, "utf8");
  try {
    return parseVerifierKey(text.trim());
  } catch (e) {
    throw new UsageError(`--vkey ${inline ? "" : `${value}: `}${(e as Error).message}`);
  }
}

/** The TSA's CA certificate(s), PEM: a usage error when the file is missing or holds none. */
function readCa(path: string): string {
  if (!existsSync(path)) throw new UsageError(`--tsa-ca ${path}: no such file`);
  const pem = readFileSync(path, "utf8");
  if (!pem.includes("-----BEGIN CERTIFICATE-----"))
    throw new UsageError(`--tsa-ca ${path}: holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  return pem;
}

/** The base URL, without a trailing slash: an absolute http(s) URL, or a usage error. */
function baseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--url ${value} is not an absolute URL (e.g. http://localhost:3000)`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new UsageError(`--url ${value} is not an http or https URL`);
  return value.replace(/\/+$/, "");
}

function logKeyOf(vkey: string | undefined, policy: Policy | undefined): VerifierKey {
  if (vkey) {
    const key = readKey(vkey);
    const listed = policy?.logs ?? [];
    const same = (k: VerifierKey) => k.name === key.name && Buffer.from(k.publicKey).equals(key.publicKey);
    if (listed.length > 0 && !listed.some(same))
      throw new UsageError(`the policy does not list the log ${key.name}`);
    return key;
  }
  if (policy?.logs.length === 1) return policy.logs[0] as VerifierKey;
  throw new UsageError("--vkey is needed (or a policy naming exactly one log)");
}

async function main(argv: string[]): Promise<number> {
  const { values, tokens } = parseArgs({
    args: argv,
    tokens: true,
    options: {
      url: { type: "string" },
      vkey: { type: "string" },
      state: { type: "string" },
      policy: { type: "string" },
      proof: { type: "string" },
      event: { type: "string" },
      release: { type: "string" },
      disclosures: { type: "string" },
      incremental: { type: "boolean", default: false },
      "tsa-ca": { type: "string" },
      evidence: { type: "boolean", default: false },
      quiet: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
    strict: true,
  });
  // parseArgs keeps the last of a flag given twice: which one was meant is the user's to say.
  const given = new Set<string>();
  for (const token of tokens)
    if (token.kind === "option") {
      if (given.has(token.name)) throw new UsageError(`--${token.name} is given twice`);
      given.add(token.name);
    }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const policy = values.policy ? parsePolicy(readFileSync(values.policy, "utf8")) : undefined;
  // The tokens are checked against checkpoints the log's key verified: only beside that check,
  // and the CA read before it, so a wrong path is said at once, not after the whole log.
  const tsaCa = values["tsa-ca"];
  if (tsaCa !== undefined && (values.proof !== undefined || values.release !== undefined))
    throw new UsageError(
      "--tsa-ca checks the tokens of a whole log (--url with --vkey), not of --proof or --release",
    );
  if (tsaCa !== undefined && !values.vkey && !policy)
    throw new UsageError(
      "--tsa-ca needs --vkey (or a policy): the tokens are checked against the checkpoints the log's key verifies",
    );
  const tsaCaPem = tsaCa === undefined ? undefined : readCa(tsaCa);
  const progress = values.quiet ? undefined : (line: string) => process.stderr.write(`${line}\n`);

  if (values.release !== undefined) {
    if (!values.url) throw new UsageError("--release needs --url");
    const logKey = logKeyOf(values.vkey, policy);
    const report = await rebuildRelease(baseUrl(values.url), values.release, logKey, fetch, policy);
    for (const line of describeRebuild(report)) console.log(line);
    return report.ok ? 0 : 1;
  }

  if (values.proof !== undefined) {
    if (!values.event) throw new UsageError("--proof needs --event <event.json>");
    const event = JSON.parse(readFileSync(values.event, "utf8")) as StoredEvent;
    const { checkpoint, index } = verifyEventProof({
      proofText: readFileSync(values.proof, "utf8"),
      event,
      logKey: logKeyOf(values.vkey, policy),
      ...(policy ? { policy } : {}),
    });
    console.log(
      `OK incident ${event.incidentId} version ${event.version} (event ${event.eventId}) is leaf ${index} of ${checkpoint.origin} at size ${checkpoint.size}`,
    );
    return 0;
  }

  if (!values.url) throw new UsageError("--url is needed");
  const url = baseUrl(values.url);
  if (values.evidence) {
    // Every public blob an EvidenceCaptured event names, fetched and hashed; then the log, if a key is given.
    const report = await verifyEvidence(url, progress);
    for (const failure of report.failures) console.error(`FAIL: ${failure}`);
    if (report.failures.length > 0) {
      const publicFailures = report.failures.length - report.restrictedFailures;
      if (publicFailures > 0)
        console.error(
          `FAIL: ${publicFailures} of ${report.captures - report.restricted} public captures do not match the bytes served; ${report.checked} do`,
        );
      if (report.restrictedFailures > 0)
        console.error(
          `FAIL: ${report.restrictedFailures} of ${report.restricted} restricted captures' bytes are not held or are served to anyone`,
        );
      return 1;
    }
    console.log(
      `OK evidence: ${report.checked} captures match their bytes (${report.bytes} bytes fetched), ${report.restricted} restricted not fetched`,
    );
    if (!values.vkey && !policy && values.disclosures === undefined) return 0;
  }
  if (values.disclosures !== undefined) {
    // Each disclosure against the commitment at its pointer; with --vkey the log is checked too.
    const report = await verifyDisclosures(httpSource(url), readFileSync(values.disclosures, "utf8"));
    for (const b of report.bad)
      console.error(`FAIL line ${b.line}: ${b.incidentId} ${b.eventId} ${b.pointer}: ${b.problem}`);
    if (report.bad.length > 0) {
      console.error(
        `FAIL: ${report.bad.length} of ${report.checked} disclosures do not match their commitments`,
      );
      return 1;
    }
    console.log(`OK ${report.checked} disclosures match their commitments`);
    if (!values.vkey && !policy) return 0;
  }
  const state = values.state ? await readState(values.state) : null;
  if (values.state && !state)
    console.error(
      `note: ${values.state} holds no earlier checkpoint: this run has nothing to compare with, and remembers the one it verifies`,
    );
  if (values.incremental && !state?.heads) {
    throw new UsageError("--incremental needs a --state file written by an earlier run");
  }
  const source = httpSource(url);
  const result = await verifyLog({
    source,
    incremental: values.incremental,
    logKey: logKeyOf(values.vkey, policy),
    ...(policy ? { policy } : {}),
    state,
    ...(progress ? { progress } : {}),
  });
  // Trusted time: every RFC 3161 token, against its checkpoint and the TSA's CA.
  const stamped = tsaCaPem
    ? await verifyTimestamps({
        source,
        checkpoint: result.checkpoint,
        caPem: tsaCaPem,
        ...(progress ? { progress } : {}),
      })
    : null;
  if (values.state) await writeState(values.state, result.state);
  const grew = state ? ` (was ${state.size} at the last run)` : "";
  console.log(
    `OK ${result.checkpoint.origin}: tree size ${result.checkpoint.size}${grew}, ${result.leaves} leaves, ${result.incidents} incidents, ${result.events} events verified; ${source.bytesRead?.() ?? 0} bytes downloaded`,
  );
  if (stamped)
    console.log(
      `OK ${stamped.tokens} RFC 3161 tokens verified against ${tsaCa}${stamped.newest ? `; the newest, over tree size ${stamped.newest.treeSize}, has genTime ${stamped.newest.genTime}` : ""}`,
    );
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    if (e instanceof UsageError || (e as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
      console.error(`${(e as Error).message}\n${USAGE}`);
      process.exit(2);
    }
    const prefix = e instanceof VerificationError ? "FAIL" : "FAIL (could not verify)";
    console.error(`${prefix}: ${reasonOf(e)}`);
    process.exit(1);
  },
);
