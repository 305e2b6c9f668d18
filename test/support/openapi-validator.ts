import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

/**
 * Checks real answers against the OpenAPI document the server itself serves: the operation
 * (path template and method), the status, the media type, the body against its schema and the
 * declared headers. A path the document does not know may only answer 404; a known path with
 * another method, only 405 with `Allow`. Nothing here copies a schema: it reads the document.
 */
type Json = Record<string, unknown>;
type Operation = { responses: Record<string, ResponseSpec> };
type ResponseSpec = {
  headers?: Record<string, { required?: boolean; schema?: Json }>;
  content?: Record<string, { schema?: Json }>;
};

// ajv-formats is CommonJS with its function as `default`; under NodeNext its typing is the module.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const DOC_ID = "openapi.json";
const METHODS = ["get", "put", "post", "delete", "patch", "options", "head", "trace"];

/** Refs in the document are local (`#/components/...`); compiled apart, they must name the document. */
function absolutize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(absolutize);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      k === "$ref" && typeof v === "string" && v.startsWith("#/") ? `${DOC_ID}${v}` : absolutize(v),
    ]),
  );
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const templateRegExp = (template: string, param: string) =>
  new RegExp(
    `^${template
      .split(/\{[^}]+\}/)
      .map(escapeRegExp)
      .join(param)}$`,
  );

export interface Observed {
  method: string;
  /** The request target: path and query. */
  path: string;
  status: number;
  headers: Headers;
  /** The body as text ("" when there is none). */
  text: string;
}

export class ResponseValidator {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly templates: { template: string; pattern: RegExp; spanning: RegExp; literal: number }[];

  constructor(readonly doc: Json) {
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: DOC_ID, components: absolutize((doc.components as Json) ?? {}) });
    const paths = Object.keys(doc.paths as Json);
    this.templates = paths
      .map((template) => ({
        template,
        pattern: templateRegExp(template, "[^/]+"),
        // Tile paths name one parameter in several segments (`x001/x234/067`): a second pass allows it.
        spanning: templateRegExp(template, ".+"),
        literal: template.replace(/\{[^}]+\}/g, "").length,
      }))
      // The most literal template wins: /log/checkpoint before /log/{anything}.
      .sort((a, b) => b.literal - a.literal);
  }

  /** Every way the answer departs from the document; empty when it conforms. */
  check(answer: Observed): string[] {
    const path = answer.path.split("?")[0] as string;
    const where = `${answer.method} ${answer.path} → ${answer.status}`;
    const match =
      this.templates.find((t) => t.pattern.test(path)) ?? this.templates.find((t) => t.spanning.test(path));
    if (!match) {
      return answer.status === 404
        ? this.checkBody(
            where,
            answer,
            { content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } } },
            "unmatched",
          )
        : [`${where}: no path of the document matches, yet the answer is not 404`];
    }
    const item = (this.doc.paths as Record<string, Record<string, Operation>>)[match.template] ?? {};
    const method = answer.method.toLowerCase() === "head" ? "get" : answer.method.toLowerCase();
    const operation = item[method];
    if (!operation) {
      const allowed = METHODS.filter((m) => item[m]).map((m) => m.toUpperCase());
      const allow = (answer.headers.get("allow") ?? "").split(/,\s*/);
      const problems: string[] = [];
      if (answer.status !== 405)
        problems.push(`${where}: ${match.template} has no ${method}, so the answer must be 405`);
      for (const m of allowed) if (!allow.includes(m)) problems.push(`${where}: Allow lacks ${m}`);
      return problems;
    }
    const key = `${method} ${match.template}`;
    const spec =
      operation.responses[String(answer.status)] ??
      operation.responses[`${String(answer.status)[0]}XX`] ??
      operation.responses.default;
    if (!spec) return [`${where}: status ${answer.status} is not documented for ${key}`];
    const problems: string[] = [];
    for (const [name, header] of Object.entries(spec.headers ?? {})) {
      const value = answer.headers.get(name);
      if (value === null) {
        if (header.required) problems.push(`${where}: header ${name} is required`);
        continue;
      }
      if (header.schema)
        problems.push(
          ...this.validate(`${key} ${answer.status} header ${name}`, header.schema, value, where),
        );
    }
    if (answer.method.toLowerCase() === "head") return problems;
    return [...problems, ...this.checkBody(where, answer, spec, `${key} ${answer.status}`)];
  }

  private checkBody(where: string, answer: Observed, spec: ResponseSpec, key: string): string[] {
    const content = spec.content ?? {};
    const declared = Object.keys(content);
    if (declared.length === 0)
      return answer.text === "" ? [] : [`${where}: a body, where the document declares none`];
    const type = (answer.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
    const media = content[type];
    if (!media) return [`${where}: Content-Type ${type || "(none)"} is not one of ${declared.join(", ")}`];
    if (!media.schema) return [];
    if (!/[/+]json$/.test(type)) return this.validate(`${key} ${type}`, media.schema, answer.text, where);
    let body: unknown;
    try {
      body = JSON.parse(answer.text);
    } catch {
      return [`${where}: ${type} body is not JSON`];
    }
    return this.validate(`${key} ${type}`, media.schema, body, where);
  }

  private validate(key: string, schema: Json, value: unknown, where: string): string[] {
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.compile(absolutize(schema) as Json);
      this.compiled.set(key, validate);
    }
    if (validate(value)) return [];
    return (validate.errors ?? []).map(
      (e) =>
        `${where}: ${e.instancePath || "(body)"} ${e.message ?? "is invalid"} ${JSON.stringify(e.params)}`,
    );
  }
}

const validators = new Map<string, Promise<ResponseValidator>>();

/**
 * The validator for the document a running server serves, fetched once per address (the
 * document is the code's, the same from every server of it).
 */
export function validatorFor(base: string): Promise<ResponseValidator> {
  let validator = validators.get(base);
  if (!validator) {
    validator = fetch(`${base}/openapi.json`).then(async (r) => {
      if (r.status !== 200) throw new Error(`GET ${base}/openapi.json answered ${r.status}`);
      return new ResponseValidator((await r.json()) as Json);
    });
    // A failure is not kept: a later server on the same port (files share a worker) asks again.
    validator.catch(() => validators.delete(base));
    validators.set(base, validator);
  }
  return validator;
}
