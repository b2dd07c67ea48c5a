import { z } from 'zod';

/**
 * zod -> JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1) for the OpenAPI document,
 * the agent-context and the docs pages. The schemas in src/schemas stay the one source;
 * the few places where a zod schema is not what a client sends are marked here:
 *
 * - `documentedAs`: a query integer is parsed from text (`'20'` -> 20), so its zod input
 *   is a string with a pattern; clients should read it as the integer with its bounds.
 * - `documentedAsAbsent`: a field a revision refuses (`notInRevision`) is left out of the
 *   documents; with `additionalProperties: false` that says exactly "not accepted".
 */
export type JsonSchema = { [key: string]: unknown };

const ABSENT = 'x-not-accepted';
const documented = new WeakMap<object, JsonSchema>();

/** Documents `schema` as `json` instead of its own conversion. */
export function documentedAs<S extends z.ZodType>(schema: S, json: JsonSchema): S {
  documented.set(schema, json);
  return schema;
}

/** Marks a field schema that the documents leave out (see `notInRevision`). */
export function documentedAsAbsent<S extends z.ZodType>(schema: S): S {
  documented.set(schema, { [ABSENT]: true });
  return schema;
}

type OverrideContext = { zodSchema: unknown; jsonSchema: JsonSchema };

function override({ zodSchema, jsonSchema }: OverrideContext): void {
  const replacement = documented.get(zodSchema as object);
  if (replacement) {
    for (const key of Object.keys(jsonSchema)) delete jsonSchema[key];
    Object.assign(jsonSchema, structuredClone(replacement));
    return;
  }
  // zod drops the default of a text-parsed value in input mode (its default is the parsed
  // number); a documented inner schema takes the default back.
  const def = (zodSchema as { _zod?: { def?: { type?: string; innerType?: object; defaultValue?: unknown } } })._zod?.def;
  if (def?.type === 'default' && def.innerType && documented.has(def.innerType) && jsonSchema.default === undefined) {
    jsonSchema.default = def.defaultValue;
  }
}

// zod writes these for an unbounded z.int(); they say nothing to a reader.
const SAFE_INTEGER_BOUNDS: Record<string, number> = { minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER };

/** Removes what the documents do not want: `$schema`/`$id`, absent fields, safe-integer bounds. */
function tidy(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) tidy(item);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const schema = node as JsonSchema;
  delete schema.$schema;
  delete schema.$id;
  for (const [key, bound] of Object.entries(SAFE_INTEGER_BOUNDS)) if (schema[key] === bound) delete schema[key];
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  if (properties && typeof properties === 'object') {
    for (const [name, property] of Object.entries(properties)) {
      if (property?.[ABSENT]) {
        delete properties[name];
        if (Array.isArray(schema.required)) schema.required = (schema.required as string[]).filter((r) => r !== name);
      }
    }
    if (Array.isArray(schema.required) && schema.required.length === 0) delete schema.required;
  }
  for (const value of Object.values(schema)) tidy(value);
}

const options = (io: 'input' | 'output') => ({ target: 'draft-2020-12' as const, io, unrepresentable: 'any' as const, override });

/**
 * One schema on its own (nested pieces inlined): for the agent-context and for the
 * parameters of an operation. `io: 'input'` is what a client sends, `'output'` what it reads.
 */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const json = z.toJSONSchema(schema, options(io)) as JsonSchema;
  tidy(json);
  return json;
}

/**
 * Named schemas converted together, for `components.schemas`: a named schema used inside
 * another becomes a `$ref` to `#/components/schemas/<name>` (recursive ones included).
 */
export function componentSchemasOf(named: Record<string, z.ZodType>, io: 'input' | 'output'): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(named)) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, { ...options(io), uri: (id: string) => `#/components/schemas/${id}` }) as {
    schemas: Record<string, JsonSchema>;
  };
  tidy(schemas);
  return schemas;
}
