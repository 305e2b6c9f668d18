import { MalformedPolicyError } from "./errors.js";
import { COSIGNATURE_V1, ED25519, parseVerifierKey, type VerifierKey, verifiedCosignatures } from "./note.js";

/**
 * c2sp.org/tlog-policy: which logs, which witnesses, and the quorum of cosignatures a checkpoint
 * needs. Groups are defined before use, so the structure is a tree evaluated bottom-up.
 */
export interface Policy {
  logs: VerifierKey[];
  witnesses: Map<string, VerifierKey>;
  groups: Map<string, { threshold: number; members: string[] }>;
  /** A witness or group name, or "none". */
  quorum: string;
}

export function parsePolicy(text: string): Policy {
  const logs: VerifierKey[] = [];
  const witnesses = new Map<string, VerifierKey>();
  const groups = new Map<string, { threshold: number; members: string[] }>();
  const seenKeys = new Set<string>();
  let quorum: string | undefined;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the spec allows tab and newline only.
  if (/[\u0000-\u0008\u000b-\u001f\u007f]/.test(text)) throw new MalformedPolicyError("a control character");
  const defined = (name: string) => name === "none" || witnesses.has(name) || groups.has(name);
  text.split("\n").forEach((raw, i) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    const at = `line ${i + 1}`;
    const [keyword, ...args] = line.split(/[ \t]+/);
    const key = (vkey: string | undefined, type: number) => {
      let k: VerifierKey;
      try {
        k = parseVerifierKey(vkey ?? "");
      } catch (e) {
        throw new MalformedPolicyError(`${at}: ${(e as Error).message}`);
      }
      if (k.type !== type)
        throw new MalformedPolicyError(`${at}: key of signature type ${k.type}, not ${type}`);
      const raw = Buffer.from(k.publicKey).toString("hex");
      if (seenKeys.has(`${type}:${raw}`)) throw new MalformedPolicyError(`${at}: the same key twice`);
      seenKeys.add(`${type}:${raw}`);
      return k;
    };
    switch (keyword) {
      case "log":
        if (args.length < 1 || args.length > 2) throw new MalformedPolicyError(`${at}: log <vkey> [<url>]`);
        logs.push(key(args[0], ED25519));
        return;
      case "witness": {
        if (args.length < 2 || args.length > 3)
          throw new MalformedPolicyError(`${at}: witness <name> <vkey> [<url>]`);
        const name = args[0] as string;
        if (defined(name)) throw new MalformedPolicyError(`${at}: ${name} is already defined`);
        witnesses.set(name, key(args[1], COSIGNATURE_V1));
        return;
      }
      case "group": {
        const [name, k, ...members] = args as [string, string, ...string[]];
        if (!name || !k || members.length === 0)
          throw new MalformedPolicyError(`${at}: group <name> <k> <name>...`);
        if (defined(name)) throw new MalformedPolicyError(`${at}: ${name} is already defined`);
        if (new Set(members).size !== members.length)
          throw new MalformedPolicyError(`${at}: a member listed twice`);
        for (const m of members) {
          if (m === "none" || !defined(m))
            throw new MalformedPolicyError(`${at}: ${m} is not defined before`);
        }
        const threshold =
          k === "all" ? members.length : k === "any" ? 1 : /^[1-9][0-9]*$/.test(k) ? Number(k) : 0;
        if (threshold < 1 || threshold > members.length)
          throw new MalformedPolicyError(`${at}: bad threshold ${k}`);
        groups.set(name, { threshold, members });
        return;
      }
      case "quorum":
        if (quorum !== undefined) throw new MalformedPolicyError(`${at}: a second quorum line`);
        if (args.length !== 1 || !defined(args[0] as string)) {
          throw new MalformedPolicyError(`${at}: quorum names a witness or group defined before`);
        }
        quorum = args[0] as string;
        return;
      default:
        throw new MalformedPolicyError(`${at}: unknown line ${keyword}`);
    }
  });
  if (quorum === undefined) throw new MalformedPolicyError("a policy has exactly one quorum line");
  return { logs, witnesses, groups, quorum };
}

/** Whether the witnesses (policy names) that cosigned satisfy the quorum. */
export function quorumMet(policy: Policy, cosignedBy: ReadonlySet<string>): boolean {
  const met = (name: string): boolean => {
    if (name === "none") return true;
    if (policy.witnesses.has(name)) return cosignedBy.has(name);
    const group = policy.groups.get(name);
    if (!group) return false;
    return group.members.filter(met).length >= group.threshold;
  };
  return met(policy.quorum);
}

/** The policy names of the witnesses whose cosignatures on this signed checkpoint verify. */
export function cosignedBy(policy: Policy, note: string): Set<string> {
  const verified = verifiedCosignatures(note, [...policy.witnesses.values()]);
  const names = new Set<string>();
  for (const [name, key] of policy.witnesses) if (verified.has(key.name)) names.add(name);
  return names;
}
