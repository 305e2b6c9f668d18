import { execFile, execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Validations } from "aws-cdk-lib";
import * as sqs from "aws-cdk-lib/aws-sqs";
import type { IConstruct } from "constructs";
import { describe, expect, it } from "vitest";
import { createLedgerApp } from "../../infra/ledger-app.js";
import { synthLedger, TEST_LOG_ORIGIN } from "./synth.js";

const run = promisify(execFile);

/** Every `Validations.of(x).acknowledge(...)` in the app: rule id → reason. */
function acknowledgements(root: IConstruct): Map<string, string> {
  const found = new Map<string, string>();
  for (const construct of root.node.findAll()) {
    for (const entry of construct.node.metadata) {
      if (entry.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY) continue;
      for (const [rule, reason] of Object.entries(entry.data as Record<string, string>)) {
        found.set(`${construct.node.path} ${rule.replace(/^annotation::/i, "")}`, reason);
      }
    }
  }
  return found;
}

describe("cdk-nag (AwsSolutions), run by the app itself", () => {
  // cdk-nag 3 is a CDK validation plugin, not an Aspect: findings are not Annotations but a
  // validation report, and an in-memory synth throws when any finding is not acknowledged.
  it("passes: every finding is fixed or acknowledged with a reason", () => {
    const { app } = synthLedger();
    const acknowledged = acknowledgements(app);
    expect([...acknowledged.keys()].map((k) => k.split(" ")[1]).sort()).toEqual(
      expect.arrayContaining([
        "AwsSolutions-APIG4",
        "AwsSolutions-COG2",
        "AwsSolutions-COG8",
        "AwsSolutions-IAM5[Resource::*]",
        "AwsSolutions-SQS3",
      ]),
    );
    for (const [where, reason] of acknowledged) {
      expect(reason.length, `the acknowledgement at ${where} needs a real reason`).toBeGreaterThan(60);
    }
  });

  it("fails the synth on a finding nobody acknowledged", () => {
    const { app, stack } = createLedgerApp({
      context: { "aws:cdk:bundling-stacks": [], logOrigin: TEST_LOG_ORIGIN },
      builtinCloudFormationValidation: false,
    });
    new sqs.Queue(stack, "PlaintextQueue", { encryption: sqs.QueueEncryption.UNENCRYPTED });
    expect(() => app.synth()).toThrow(/AwsSolutions-SQS4/);
  });
});

describe("cfn-lint", () => {
  it("passes on the synthesized template (ignoring W3005, CDK's redundant DependsOn)", async () => {
    const cfnLint = whichCfnLint();
    const { template } = synthLedger();
    const dir = await mkdtemp(join(tmpdir(), "ledger-cfn-lint-"));
    const file = join(dir, "IncidentLedger.template.json");
    writeFileSync(file, JSON.stringify(template.toJSON(), null, 1));
    // Exit code 0 only when there is no error, warning or informational finding.
    const result = await run(cfnLint, ["--ignore-checks", "W3005", "--", file]).then(
      () => ({ code: 0, output: "" }),
      (error: { code?: number; stdout?: string; stderr?: string }) => ({
        code: error.code ?? -1,
        output: `${error.stdout ?? ""}${error.stderr ?? ""}`,
      }),
    );
    expect(result.output).toBe("");
    expect(result.code).toBe(0);
  });
});

/** cfn-lint is a Python tool the machines carry; a test that silently skipped would prove nothing. */
function whichCfnLint(): string {
  try {
    return execFileSync("sh", ["-c", "command -v cfn-lint"], { encoding: "utf8" }).trim();
  } catch {
    throw new Error(
      "cfn-lint is not on PATH: install it with `pip install cfn-lint` (.ci/run also looks under ~/.pyenv/shims).",
    );
  }
}
