import type { CfnElement } from "aws-cdk-lib";
import type { Template } from "aws-cdk-lib/assertions";
import type { IConstruct } from "constructs";
import { beforeAll, describe, expect, it } from "vitest";
import { AUDIT_KEYS, DISCLOSURES_KEYS } from "../../functions/store/table-design.js";
import type { LedgerStack } from "../../infra/ledger-stack.js";
import { actionsByResource, type Json, synthLedger } from "./synth.js";

let stack: LedgerStack;
let template: Template;
const id = (construct: IConstruct) => stack.getLogicalId(construct.node.defaultChild as CfnElement);
const on = (role: IConstruct, table: IConstruct) =>
  [...(actionsByResource(template, id(role)).get(id(table)) ?? [])].sort();

beforeAll(() => {
  ({ stack, template } = synthLedger());
});

describe("the people's tables (disclosures, audit)", () => {
  it("keeps both like the events: retained, deletion-protected, PITR, encrypted, with the store's keys", () => {
    const resources: Json = template.toJSON().Resources;
    for (const [table, keys] of [
      [stack.people.disclosures, DISCLOSURES_KEYS],
      [stack.people.audit, AUDIT_KEYS],
    ] as const) {
      const resource = resources[id(table)];
      expect(resource.DeletionPolicy).toBe("Retain");
      expect(resource.Properties).toMatchObject({
        DeletionProtectionEnabled: true,
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        SSESpecification: { SSEEnabled: true },
        KeySchema: [
          { AttributeName: keys.partitionKey, KeyType: "HASH" },
          { AttributeName: keys.sortKey, KeyType: "RANGE" },
        ],
      });
    }
  });

  it("lets the append path write, withhold and erase disclosures (never delete), and only add audit records", () => {
    // Packs are put one by one (conditionally) and redacted in place: no batch write, no delete.
    expect(on(stack.api.role, stack.people.disclosures)).toEqual([
      "dynamodb:GetItem",
      "dynamodb:PutItem",
      "dynamodb:Query",
      "dynamodb:UpdateItem",
    ]);
    expect(on(stack.api.role, stack.people.audit)).toEqual(["dynamodb:PutItem"]);
  });

  it("lets the pages read disclosures (and write them as the API's append does, for the desk) and add audit records (the data Lambda too, for bundles); the exports function scan disclosures only", () => {
    // The desk's posts run the API's sealing append (infra/desk.ts): the API's writes, no more.
    expect(on(stack.pages.role, stack.people.disclosures)).toEqual([
      "dynamodb:GetItem",
      "dynamodb:PutItem",
      "dynamodb:Query",
      "dynamodb:UpdateItem",
    ]);
    expect(on(stack.pages.role, stack.people.audit)).toEqual(["dynamodb:PutItem"]);
    // The data Lambda redirects the disclosures export to the exports function, which scans.
    expect(on(stack.data.role, stack.people.disclosures)).toEqual([]);
    expect(on(stack.exportStreaming.fn.role, stack.people.disclosures)).toEqual(["dynamodb:Scan"]);
    // It records a restricted-reader's proof bundle holding restricted evidence: add, never change.
    expect(on(stack.data.role, stack.people.audit)).toEqual(["dynamodb:PutItem"]);
    expect(on(stack.projector.role, stack.people.disclosures)).toEqual([]);
    // Scans and batch writes elsewhere stay the view repair's alone.
    for (const role of [stack.api.role, stack.data.role, stack.pages.role]) {
      for (const [resource, actions] of actionsByResource(template, id(role))) {
        if (resource === id(stack.people.disclosures)) continue;
        for (const action of actions) expect(action).not.toMatch(/^dynamodb:(BatchWrite|Scan)/);
      }
    }
  });

  it("tells the API and pages Lambdas the tables and the issuer whose tokens a restricted read verifies", () => {
    const resources: Json = template.toJSON().Resources;
    for (const fn of [stack.api, stack.pages]) {
      const variables = resources[id(fn.function)].Properties.Environment.Variables;
      expect(Object.keys(variables)).toEqual(
        expect.arrayContaining([
          "DISCLOSURES_TABLE",
          "AUDIT_TABLE",
          "READER_JWT_ISSUER",
          "READER_JWT_AUDIENCE",
          "GROUPS_CLAIM",
        ]),
      );
    }
    // The data Lambda reads roles from claims too (POST /releases, restricted evidence).
    const data = resources[id(stack.data.function)].Properties.Environment.Variables;
    expect(data.GROUPS_CLAIM).toBe("cognito:groups");
    const { stack: other, template: otherTemplate } = synthLedger({
      jwtIssuer: "https://issuer.example.org/",
      jwtAudience: "ledger",
      groupsClaim: "roles",
    });
    const otherResources: Json = otherTemplate.toJSON().Resources;
    for (const fn of [other.api, other.pages, other.data]) {
      const logical = other.getLogicalId(fn.function.node.defaultChild as CfnElement);
      expect(otherResources[logical].Properties.Environment.Variables.GROUPS_CLAIM).toBe("roles");
    }
  });
});
