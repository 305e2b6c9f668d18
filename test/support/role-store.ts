import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { resourceKey } from "../infra/synth.js";

// biome-ignore lint/suspicious/noExplicitAny: a CloudFormation template is read loosely.
type Json = any;

/** One DynamoDB call a role was refused, as AWS would refuse it. */
export interface Denial {
  action: string;
  table: string;
  index?: string;
  leadingKeys: string[];
  attributes: string[];
  /** A Query's or Scan's `Select`, as the request gives it (IAM's `dynamodb:Select`). */
  select?: string;
}

/**
 * dynalite behind one role's IAM policies, as AWS would judge each call: a proxy in front of the
 * store that answers `AccessDeniedException` unless an Allow statement of the role's policies in
 * the synthesized template grants the action on that table (or index), with its
 * `dynamodb:LeadingKeys`, `dynamodb:Attributes` and `dynamodb:Select` conditions, and forwards
 * the rest. dynalite
 * knows nothing of IAM, so without this a call the code makes and its role may not make passes
 * every test and fails only once deployed. Every refusal is also kept in `denials`, for a call
 * whose error the code catches.
 *
 * `tables` names each test table by the template's logical id of the table it stands for.
 */
export async function startRoleStore(options: {
  target: string;
  template: Json;
  roleLogicalId: string;
  tables: Record<string, string>;
}): Promise<{ endpoint: string; denials: Denial[]; close: () => Promise<void> }> {
  const { template, roleLogicalId } = options;
  const logicalIdOf = new Map(Object.entries(options.tables).map(([id, name]) => [name, id]));
  const statements = roleStatements(template, roleLogicalId);
  const keyOf = (tableId: string, index?: string) => hashKeyOf(template, tableId, index);
  const denials: Denial[] = [];
  const target = new URL(options.target);

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const op = String(req.headers["x-amz-target"] ?? "").split(".")[1] ?? "";
      const refused = accesses(op, JSON.parse(body.toString() || "{}"), (table, index) => {
        const id = logicalIdOf.get(table);
        return id ? keyOf(id, index) : undefined;
      }).find((access) => {
        const id = logicalIdOf.get(access.table);
        return !id || !statements.some((st) => allows(st, access, id));
      });
      if (refused) {
        denials.push(refused);
        res.writeHead(400, { "content-type": "application/x-amz-json-1.0" });
        res.end(
          JSON.stringify({
            __type: "com.amazon.coral.service#AccessDeniedException",
            message: `User: ${roleLogicalId} is not authorized to perform: ${refused.action} on resource: table/${refused.table}${refused.index ? `/index/${refused.index}` : ""} (keys ${refused.leadingKeys.join(", ")})`,
          }),
        );
        return;
      }
      const forward = request(
        {
          host: target.hostname,
          port: target.port,
          method: req.method,
          path: req.url,
          headers: req.headers,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 500, answer.headers);
          answer.pipe(res);
        },
      );
      forward.on("error", (error) => {
        res.writeHead(502);
        res.end(String(error));
      });
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    denials,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The Allow statements of every policy attached to the role. */
function roleStatements(template: Json, roleLogicalId: string): Json[] {
  return Object.values(template.Resources as Record<string, Json>)
    .filter(
      (r) =>
        r.Type === "AWS::IAM::Policy" &&
        (r.Properties.Roles as Json[]).some((role) => role.Ref === roleLogicalId),
    )
    .flatMap((r) => r.Properties.PolicyDocument.Statement as Json[])
    .filter((st) => st.Effect === "Allow");
}

/** The partition key of a table, or of one of its indexes, from the template. */
function hashKeyOf(template: Json, tableId: string, index?: string): string | undefined {
  const props = template.Resources[tableId]?.Properties;
  if (!props) return undefined;
  const schema = index
    ? [...(props.GlobalSecondaryIndexes ?? []), ...(props.LocalSecondaryIndexes ?? [])].find(
        (i: Json) => i.IndexName === index,
      )?.KeySchema
    : props.KeySchema;
  return (schema as Json[] | undefined)?.find((k) => k.KeyType === "HASH")?.AttributeName;
}

/** What a call reaches, one entry per table (a batch names several). */
function accesses(
  op: string,
  input: Json,
  hashKey: (table: string, index?: string) => string | undefined,
): Denial[] {
  const action = `dynamodb:${op}`;
  const one = (table: string, keys: string[], attributes: string[] = [], index?: string): Denial => ({
    action,
    table,
    ...(index ? { index } : {}),
    leadingKeys: keys,
    attributes,
  });
  const leading = (table: string, item: Json | undefined): string[] => {
    const name = hashKey(table);
    const value = name ? item?.[name] : undefined;
    return value?.S !== undefined ? [value.S] : value?.N !== undefined ? [value.N] : [];
  };
  switch (op) {
    case "GetItem":
    case "DeleteItem":
      return [one(input.TableName, leading(input.TableName, input.Key))];
    case "PutItem":
      return [one(input.TableName, leading(input.TableName, input.Item), Object.keys(input.Item ?? {}))];
    case "UpdateItem":
      return [
        one(input.TableName, leading(input.TableName, input.Key), [
          ...Object.keys(input.Key ?? {}),
          ...namesIn(input.UpdateExpression, input.ExpressionAttributeNames),
        ]),
      ];
    case "Query": {
      const name = hashKey(input.TableName, input.IndexName);
      const keys = name ? equalsValue(input.KeyConditionExpression, name, input) : [];
      return [one(input.TableName, keys, [], input.IndexName)];
    }
    case "Scan":
      return [
        {
          ...one(input.TableName, [], projected(input), input.IndexName),
          ...(input.Select ? { select: String(input.Select) } : {}),
        },
      ];
    case "BatchGetItem":
      return Object.entries(input.RequestItems ?? {}).map(([table, request]: [string, Json]) =>
        one(
          table,
          (request.Keys as Json[]).flatMap((k) => leading(table, k)),
        ),
      );
    case "BatchWriteItem":
      return Object.entries(input.RequestItems ?? {}).map(([table, requests]: [string, Json]) =>
        one(
          table,
          (requests as Json[]).flatMap((r) => leading(table, r.PutRequest?.Item ?? r.DeleteRequest?.Key)),
        ),
      );
    default:
      // Any other operation (a transaction, a table's management): no role of the stack has it.
      return [one(input.TableName ?? "?", [])];
  }
}

/** The top-level attribute names an update expression sets or removes. */
function namesIn(expression: string | undefined, names: Record<string, string> = {}): string[] {
  if (!expression) return [];
  const found = new Set<string>();
  for (const clause of expression.split(/\b(?=SET|REMOVE|ADD|DELETE)\b/)) {
    const body = clause.replace(/^\s*(SET|REMOVE|ADD|DELETE)\s+/, "");
    for (const part of body.split(",")) {
      const path = part.split(/=|\s/).find((t) => t.length > 0) ?? "";
      const top = path.split(/[.[]/)[0] ?? "";
      if (top) found.add(top.startsWith("#") ? (names[top] ?? top) : top);
    }
  }
  return [...found];
}

/** The top-level attribute names a read asks for (ProjectionExpression, or AttributesToGet). */
function projected(input: Json): string[] {
  const names: Record<string, string> = input.ExpressionAttributeNames ?? {};
  const paths: string[] = input.ProjectionExpression
    ? String(input.ProjectionExpression).split(",")
    : ((input.AttributesToGet as string[] | undefined) ?? []);
  return [
    ...new Set(
      paths
        .map((p) => p.trim().split(/[.[]/)[0] ?? "")
        .filter((top) => top.length > 0)
        .map((top) => (top.startsWith("#") ? (names[top] ?? top) : top)),
    ),
  ];
}

/** The value a key condition gives the partition key (`name = :v` or `#n = :v`). */
function equalsValue(expression: string | undefined, name: string, input: Json): string[] {
  if (!expression) return [];
  for (const match of expression.matchAll(/([#\w]+)\s*=\s*(:\w+)/g)) {
    const [, left = "", placeholder = ""] = match;
    const attribute = left.startsWith("#") ? input.ExpressionAttributeNames?.[left] : left;
    if (attribute !== name) continue;
    const value = input.ExpressionAttributeValues?.[placeholder];
    return value?.S !== undefined ? [value.S] : value?.N !== undefined ? [value.N] : [];
  }
  return [];
}

function allows(statement: Json, access: Denial, tableId: string): boolean {
  const actions = [statement.Action].flat() as string[];
  if (!actions.some((a) => a === access.action || a === "dynamodb:*")) return false;
  const resources = [statement.Resource].flat() as Json[];
  const wanted = access.index ? `${tableId}/index/${access.index}` : tableId;
  if (!resources.some((r) => resourcePattern(r).test(wanted))) return false;
  for (const [operator, tests] of Object.entries((statement.Condition ?? {}) as Record<string, Json>)) {
    for (const [key, allowed] of Object.entries(tests as Record<string, string[]>)) {
      // A single-valued key: absent from the request, a plain StringEquals is not met.
      if (key === "dynamodb:Select") {
        if (operator !== "StringEquals" || access.select === undefined) return false;
        if (![allowed].flat().includes(access.select)) return false;
        continue;
      }
      const values =
        key === "dynamodb:LeadingKeys"
          ? access.leadingKeys
          : key === "dynamodb:Attributes"
            ? access.attributes
            : null;
      // A condition this proxy does not know is not met: it never allows more than AWS would.
      if (values === null) return false;
      // Nor are keys it could not read taken for none (ForAllValues of nothing holds): a keyed
      // call always names its keys, so none read is a gap here, refused.
      if (key === "dynamodb:LeadingKeys" && values.length === 0 && access.action !== "dynamodb:Scan")
        return false;
      const list = [allowed].flat();
      const match =
        operator === "ForAllValues:StringLike"
          ? (v: string) => list.some((p) => glob(p).test(v))
          : operator === "ForAllValues:StringEquals"
            ? (v: string) => list.includes(v)
            : null;
      if (match === null || !values.every(match)) return false;
    }
  }
  return true;
}

/** A statement's resource as a pattern over "<tableId>" and "<tableId>/index/<name>". */
function resourcePattern(resource: Json): RegExp {
  return glob(resourceKey(resource));
}

function glob(pattern: string): RegExp {
  return new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*")}$`);
}
