import type { OpenApiDocument } from './document.ts';

/**
 * The OpenAPI document turned into what the /docs/api page shows: operations grouped by
 * tag, their parameters, bodies, answers and examples, and every schema as a nested list.
 * Built from the served document itself, so the page cannot say anything the document
 * does not. Text is escaped here; the little Markdown the descriptions use (`code` and
 * **bold**) becomes HTML afterwards.
 */

type Json = { [key: string]: any };

export interface SchemaNode {
  name?: string;
  required: boolean;
  /** Type in words, e.g. "string", "integer or null", "array of Run". */
  type: string;
  /** Component the type links to. */
  link?: string;
  constraints: string[];
  /** HTML: escaped text with `code` marked up. */
  description?: string;
  children: SchemaNode[];
  variants: { title: string; children: SchemaNode[] }[];
}

export interface DocsExample {
  name: string;
  summary: string;
  json: string;
}

export interface DocsOperation {
  id: string;
  anchor: string;
  method: string;
  path: string;
  summary: string;
  description?: string;
  auth: string;
  deprecated: boolean;
  parameters: { name: string; in: string; required: boolean; type: string; constraints: string[]; description?: string }[];
  requestBody?: { schema: string; examples: DocsExample[] };
  responses: { status: string; description: string; schema?: string; mediaTypes: string[]; headers: string[]; examples: DocsExample[] }[];
}

export interface DocsPage {
  title: string;
  version: string;
  server: string;
  intro: string[];
  tags: { name: string; anchor: string; description: string; operations: DocsOperation[] }[];
  schemas: { name: string; anchor: string; root: SchemaNode }[];
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Escaped text with `code` and **bold** as HTML: safe to print unescaped. */
export function inlineMarkdown(text: string): string {
  return escapeHtml(text)
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>');
}

const refName = (ref: string) => ref.replace('#/components/schemas/', '');
export const schemaAnchor = (name: string) => `schema-${name}`;
const slug = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

function constraints(schema: Json): string[] {
  const out: string[] = [];
  if (schema.format) out.push(`format ${schema.format}`);
  if (schema.minLength !== undefined && schema.maxLength !== undefined) out.push(`${schema.minLength}-${schema.maxLength} characters`);
  else if (schema.maxLength !== undefined) out.push(`at most ${schema.maxLength} characters`);
  else if (schema.minLength !== undefined) out.push(`at least ${schema.minLength} characters`);
  if (schema.minimum !== undefined) out.push(`>= ${schema.minimum}`);
  if (schema.exclusiveMinimum !== undefined) out.push(`> ${schema.exclusiveMinimum}`);
  if (schema.maximum !== undefined) out.push(`<= ${schema.maximum}`);
  if (schema.exclusiveMaximum !== undefined) out.push(`< ${schema.exclusiveMaximum}`);
  if (schema.minItems !== undefined) out.push(`at least ${schema.minItems} items`);
  if (schema.maxItems !== undefined) out.push(`at most ${schema.maxItems} items`);
  if (schema.pattern !== undefined) out.push(`pattern ${schema.pattern}`);
  if (Array.isArray(schema.enum)) out.push(`one of ${schema.enum.map((v: unknown) => JSON.stringify(v)).join(', ')}`);
  if (schema.const !== undefined) out.push(`exactly ${JSON.stringify(schema.const)}`);
  if (schema.default !== undefined) out.push(`default ${JSON.stringify(schema.default)}`);
  if (schema.additionalProperties === false && schema.properties) out.push('no other fields');
  return out;
}

function isNull(schema: Json): boolean {
  return schema?.type === 'null';
}

/** One schema as a node of the nested list; `$ref`s become links, never expanded. */
function schemaNode(schema: Json, name?: string, required = false): SchemaNode {
  const node: SchemaNode = { name, required, type: 'any', constraints: [], children: [], variants: [] };
  if (!schema || typeof schema !== 'object') return node;
  node.description = schema.description ? inlineMarkdown(schema.description) : undefined;
  if (schema.$ref) {
    node.type = refName(schema.$ref);
    node.link = schemaAnchor(node.type);
    return node;
  }
  const alternatives: Json[] | undefined = schema.anyOf ?? schema.oneOf;
  if (alternatives) {
    const nonNull = alternatives.filter((alt) => !isNull(alt));
    const nullable = nonNull.length < alternatives.length;
    if (nonNull.length === 1) {
      const inner = schemaNode(nonNull[0]!, name, required);
      return { ...inner, type: `${inner.type}${nullable ? ' or null' : ''}`, description: node.description ?? inner.description };
    }
    node.type = `one of${nullable ? ' (or null)' : ''}`;
    node.variants = nonNull.map((alt, index) => {
      const variant = schemaNode(alt);
      const discriminator = Object.entries((alt.properties ?? {}) as Record<string, Json>).find(([, p]) => p.const !== undefined);
      const title = alt.$ref
        ? refName(alt.$ref)
        : discriminator
          ? `${discriminator[0]} = ${JSON.stringify(discriminator[1].const)}`
          : `${variant.type} (${index + 1})`;
      return { title, children: variant.children.length ? variant.children : [variant] };
    });
    return node;
  }
  node.constraints = constraints(schema);
  if (schema.type === 'array') {
    const items = schemaNode(schema.items ?? {});
    node.type = `array of ${items.type}`;
    node.link = items.link;
    node.children = items.children;
    node.variants = items.variants;
    return node;
  }
  if (schema.type === 'object' || schema.properties) {
    node.type = 'object';
    const required = new Set<string>(schema.required ?? []);
    node.children = Object.entries((schema.properties ?? {}) as Record<string, Json>).map(([key, value]) =>
      schemaNode(value, key, required.has(key)),
    );
    if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
      const value = schemaNode(schema.additionalProperties);
      node.type = `object of ${value.type}`;
      node.link = value.link;
      if (value.children.length) node.children = value.children;
    }
    return node;
  }
  node.type = Array.isArray(schema.type)
    ? schema.type.join(' or ')
    : (schema.type ?? (schema.const !== undefined ? typeof schema.const : 'any'));
  return node;
}

const pretty = (value: unknown) => JSON.stringify(value, null, 2);

function examples(map: Json | undefined): DocsExample[] {
  return Object.entries(map ?? {}).map(([name, example]) => ({ name, summary: example.summary ?? name, json: pretty(example.value) }));
}

const AUTH_WORDS: Record<string, string> = {
  bearerAuth: 'API key (Bearer)',
  sessionCookie: 'session cookie',
};

export function docsPage(document: OpenApiDocument): DocsPage {
  const doc = document as unknown as Json;
  const operations = new Map<string, DocsOperation[]>();
  for (const [path, item] of Object.entries(doc.paths as Json)) {
    for (const [method, op] of Object.entries(item as Json)) {
      const body = op.requestBody?.content?.['application/json'];
      const security: Json[] = op.security ?? [];
      const entry: DocsOperation = {
        id: op.operationId,
        anchor: `op-${op.operationId}`,
        method: method.toUpperCase(),
        path,
        summary: op.summary,
        description: op.description ? inlineMarkdown(op.description) : undefined,
        auth: security.length
          ? security
              .flatMap((s) => Object.keys(s))
              .map((k) => AUTH_WORDS[k] ?? k)
              .join(' or ')
          : 'public',
        deprecated: Boolean(op.deprecated),
        parameters: ((op.parameters ?? []) as Json[]).map((p) => {
          const node = schemaNode(p.schema);
          return {
            name: p.name,
            in: p.in,
            required: Boolean(p.required),
            type: node.type,
            constraints: node.constraints,
            description: p.description ? inlineMarkdown(p.description) : undefined,
          };
        }),
        requestBody: body ? { schema: refName(body.schema.$ref), examples: examples(body.examples) } : undefined,
        responses: Object.entries(op.responses as Json).map(([status, response]) => {
          const json = response.content?.['application/json'];
          return {
            status,
            description: inlineMarkdown(response.description),
            schema: json ? refName(json.schema.$ref) : undefined,
            mediaTypes: Object.keys(response.content ?? {}),
            headers: Object.keys(response.headers ?? {}),
            examples: examples(json?.examples),
          };
        }),
      };
      for (const tag of op.tags as string[]) {
        if (!operations.has(tag)) operations.set(tag, []);
        operations.get(tag)!.push(entry);
      }
    }
  }
  return {
    title: doc.info.title,
    version: doc.info.version,
    server: doc.servers[0].url,
    intro: (doc.info.description as string).split(/\n\s*\n/).map(inlineMarkdown),
    tags: (doc.tags as Json[]).map((tag) => ({
      name: tag.name,
      anchor: `tag-${slug(tag.name)}`,
      description: inlineMarkdown(tag.description),
      operations: operations.get(tag.name) ?? [],
    })),
    schemas: Object.entries(doc.components.schemas as Json).map(([name, schema]) => ({
      name,
      anchor: schemaAnchor(name),
      root: schemaNode(schema),
    })),
  };
}
