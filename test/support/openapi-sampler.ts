import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { generateSync } from "json-schema-faker";

/**
 * Requests drawn from the document's own schemas (json-schema-faker, seeded by fast-check so a
 * failure shrinks to a seed and replays), and the document's verdict on any value (ajv).
 */
type Json = Record<string, unknown>;
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

export class DocumentSampler {
  private readonly schemas: Record<string, Json>;
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(doc: Json) {
    this.schemas = (doc.components as { schemas: Record<string, Json> }).schemas;
    addFormats(this.ajv);
  }

  /** The schema with every `$ref` inlined (the document's schemas are not recursive). */
  inline(schema: unknown, forGenerator = false): unknown {
    if (Array.isArray(schema)) return schema.map((s) => this.inline(s, forGenerator));
    if (typeof schema !== "object" || schema === null) return schema;
    const s = schema as Json;
    if (typeof s.$ref === "string") {
      const name = s.$ref.split("/").pop() as string;
      return this.inline(this.schemas[name], forGenerator);
    }
    // json-schema-faker ignores propertyNames; the same constraint as patternProperties it honours.
    const names = s.propertyNames as Json | undefined;
    if (forGenerator && typeof names?.pattern === "string" && typeof s.additionalProperties === "object") {
      const { propertyNames: _n, additionalProperties, ...rest } = s;
      return this.inline({ ...rest, patternProperties: { [names.pattern]: additionalProperties } }, true);
    }
    return Object.fromEntries(
      Object.entries(s)
        .filter(([k]) => k !== "discriminator")
        .map(([k, v]) => [k, this.inline(v, forGenerator)]),
    );
  }

  sample(schema: Json, seed: number): unknown {
    return generateSync(this.inline(schema, true) as Json, {
      seed,
      optionalsProbability: 0.5,
      maxItems: 3,
      maxLength: 40,
    });
  }

  /** The document's verdict: the ajv errors, empty when the value is valid. */
  errors(schema: Json, value: unknown): string[] {
    const key = JSON.stringify(schema);
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.compile(this.inline(schema) as Json);
      this.compiled.set(key, validate);
    }
    return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
  }
}
