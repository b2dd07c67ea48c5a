import { expect } from 'chai';
import Ajv2020 from 'ajv/dist/2020.js';
import type { ErrorObject } from 'ajv';
import type { Express } from 'express';

/**
 * Checks values against the schemas of a generated OpenAPI document with a real JSON Schema
 * (2020-12) validator: ajv, which @readme/openapi-parser brings along.
 */
type Json = Record<string, unknown>;

const FORMATS: Record<string, (value: string) => boolean> = {
  uuid: (v) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v),
  'date-time': (v) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(v) && !Number.isNaN(Date.parse(v)),
  date: (v) => /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(v)),
  uri: (v) => URL.canParse(v),
  email: (v) => /^[^@\s]+@[^@\s]+$/.test(v),
};

export interface SchemaChecker {
  /** Throws (a chai failure) when `value` does not match `components.schemas[name]`. */
  expectValid(name: string, value: unknown, label?: string): void;
  /** Same for an inline schema of the document (e.g. a parameter's). */
  expectValidAgainst(schema: Json, value: unknown, label?: string): void;
}

export function schemaChecker(document: Json): SchemaChecker {
  // A CommonJS module: its class is the `default` of what the import hands over.
  const ajv = new Ajv2020.default({ strict: false, allErrors: true });
  for (const [name, check] of Object.entries(FORMATS)) ajv.addFormat(name, { type: 'string', validate: check });
  const base = 'urn:bench:openapi';
  ajv.addSchema({ $id: base, components: document.components }, base);
  const describe = (errors: ErrorObject[] | null | undefined) =>
    (errors ?? [])
      .slice(0, 8)
      .map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`)
      .join('\n');
  let inline = 0;
  return {
    expectValid(name, value, label = name) {
      const validate = ajv.getSchema(`${base}#/components/schemas/${name}`);
      if (!validate) throw new Error(`no component schema ${name}`);
      const ok = validate(value);
      expect(ok, `${label} does not match ${name}:\n${describe(validate.errors)}\n${JSON.stringify(value).slice(0, 600)}`).to.equal(true);
    },
    expectValidAgainst(schema, value, label = 'value') {
      inline += 1;
      const validate = ajv.compile({ $id: `${base}:inline:${inline}`, ...schema });
      const ok = validate(value);
      expect(ok, `${label}:\n${describe(validate.errors)}\n${JSON.stringify(value).slice(0, 600)}`).to.equal(true);
    },
  };
}

export interface RegisteredRoute {
  method: string;
  path: string;
}

interface Layer {
  route?: { path: unknown; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
  rawPath?: unknown;
  slash?: boolean;
}

/** Every route Express registered, with its full path (mount paths joined), walking routers recursively. */
export function registeredRoutes(app: Express): RegisteredRoute[] {
  const routes: RegisteredRoute[] = [];
  const walk = (stack: Layer[], prefix: string) => {
    for (const layer of stack) {
      if (layer.route) {
        const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
        for (const path of paths) {
          if (typeof path !== 'string') throw new Error(`route with a non-string path under ${prefix}`);
          for (const [method, on] of Object.entries(layer.route.methods))
            if (on && method !== '_all') routes.push({ method, path: `${prefix}${path}` });
        }
      } else if (layer.handle?.stack) {
        if (!layer.slash && typeof layer.rawPath !== 'string') throw new Error(`router mounted at a non-string path under ${prefix}`);
        walk(layer.handle.stack, layer.slash ? prefix : `${prefix}${layer.rawPath as string}`);
      }
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '');
  return routes;
}
