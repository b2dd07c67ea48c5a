/**
 * What the fuzzer sends: hostile values, and the mutations that put them into otherwise
 * valid JSON bodies, forms and query strings. Everything is built as the raw text that
 * travels, so it can hold what JSON.stringify or URLSearchParams would never produce:
 * `__proto__` as an own key, 10,000 levels of nesting, `1e400`, lone-surrogate escapes,
 * broken percent-encoding.
 */
import fc from 'fast-check';

/** A value as the raw JSON text sent, and a short name for the report (the text may be 100k long). */
export interface RawJson {
  name: string;
  json: string;
}

const raw = (name: string, json: string): RawJson => ({ name, json });
/** JSON text named by itself. */
const literal = (json: string) => raw(json, json);
const stringLiteral = (text: string) => literal(JSON.stringify(text));
const nestedArrays = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const nestedObjects = (depth: number) => `${'{"a":'.repeat(depth)}0${'}'.repeat(depth)}`;

/** Text that must stay text however it is quoted: markup, SQL, template and path tricks. */
const TRICKY_TEXT = [
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '%',
  '_',
  '\\',
  '../../etc/passwd',
  '\r\nX-Injected: 1',
  '\u202e',
  '\ufeff',
  '<%= it.x %>',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template-injection probe, meant literally
  '${process.exit()}',
  '{{7*7}}',
  '$1',
  'NaN',
  'Infinity',
  '-Infinity',
  '1e400',
  '0x1A',
  ' 42 ',
  '42abc',
  '١٢',
];

/** Hostile JSON values: wrong types, extreme numbers, long and broken strings, deep nesting, prototype keys. */
export const HOSTILE_JSON: readonly RawJson[] = [
  // Wrong types.
  ...['"42"', 'true', 'false', 'null', '[]', '{}', '[null]', '""', '"   "', '[{}]'].map(literal),
  // Huge, negative, tiny and unrepresentable numbers.
  ...[
    '0',
    '-0',
    '-1',
    '0.5',
    '5e-324',
    '2147483648',
    '1e21',
    '1e308',
    '-1e308',
    '1e400',
    '-1e400',
    '9007199254740993',
    '-9223372036854775808',
    '123456789012345678901234567890',
  ].map(literal),
  ...TRICKY_TEXT.map(stringLiteral),
  raw('100k ASCII chars', JSON.stringify('a'.repeat(100_000))),
  raw('100k non-ASCII chars', JSON.stringify('é'.repeat(100_000))),
  raw('50k emoji', JSON.stringify('😀'.repeat(50_000))),
  raw('array of 10k numbers', `[${Array(10_000).fill('1').join(',')}]`),
  raw('NUL', '"\\u0000"'),
  raw('NUL inside', '"a\\u0000b"'),
  raw('lone high surrogate', '"\\ud800"'),
  raw('lone low surrogate', '"\\udfff"'),
  raw('surrogate halves reversed', '"a\\udc00\\ud800b"'),
  raw('arrays nested 70 deep', nestedArrays(70)),
  raw('arrays nested 10,000 deep', nestedArrays(10_000)),
  raw('objects nested 70 deep', nestedObjects(70)),
  raw('objects nested 10,000 deep', nestedObjects(10_000)),
  raw('own __proto__ key', '{"__proto__":{"polluted":"yes","isAdmin":true}}'),
  raw('constructor.prototype', '{"constructor":{"prototype":{"polluted":"yes"}}}'),
  raw('own prototype key', '{"prototype":{"polluted":"yes"}}'),
  raw('__proto__: null', '{"__proto__":null}'),
];

/** Keys added to objects: prototype-pollution names, unknown and broken ones. */
export const HOSTILE_KEYS: readonly RawJson[] = [
  ...['__proto__', 'constructor', 'prototype', 'polluted', 'hasOwnProperty', 'toString', '', ' '].map(stringLiteral),
  raw('NUL key', '"a\\u0000"'),
  raw('lone surrogate key', '"\\ud800"'),
  raw('10k-char key', JSON.stringify('k'.repeat(10_000))),
];

/** The pollution attempt itself: a prototype key whose object would land on Object.prototype if merged. */
const POLLUTION = {
  keys: ['__proto__', 'constructor', 'prototype'].map(stringLiteral),
  values: [
    raw('{polluted, isAdmin}', '{"polluted":"yes","isAdmin":true}'),
    raw('{prototype: {polluted}}', '{"prototype":{"polluted":"yes"}}'),
  ],
};

/** Any UTF-16 code unit, so lone surrogates and NULs turn up in generated strings. */
const anyCodeUnit = fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code));
export const anyText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: anyCodeUnit, maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
);

/** A hostile value: one of the list, or a generated one (random JSON, text with any code unit, any double or big integer). */
export const hostileJson: fc.Arbitrary<RawJson> = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...HOSTILE_JSON) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((value) => raw('random JSON', JSON.stringify(value) ?? 'null')) },
  { weight: 1, arbitrary: anyText.map((text) => raw('random text', JSON.stringify(text))) },
  // NaN and Infinity as bare words are not JSON: the parser's 400.
  {
    weight: 1,
    arbitrary: fc.oneof(fc.double(), fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n })).map((n) => raw('random number', String(n))),
  },
);

// ---------------------------------------------------------------------------
// JSON bodies: an example with a few mutations
// ---------------------------------------------------------------------------

/** A JSON tree whose nodes may be raw text, and whose objects are entry lists (so `__proto__` is just a key). */
type Node = { type: 'raw'; json: string } | { type: 'array'; items: Node[] } | { type: 'object'; entries: [string, Node][] };

function toNode(value: unknown): Node {
  if (Array.isArray(value)) return { type: 'array', items: value.map(toNode) };
  if (value && typeof value === 'object')
    return { type: 'object', entries: Object.entries(value).map(([key, child]) => [JSON.stringify(key), toNode(child)]) };
  return { type: 'raw', json: JSON.stringify(value) ?? 'null' };
}

function serialise(node: Node): string {
  if (node.type === 'raw') return node.json;
  if (node.type === 'array') return `[${node.items.map(serialise).join(',')}]`;
  return `{${node.entries.map(([key, child]) => `${key}:${serialise(child)}`).join(',')}}`;
}

/** Every node with the way to replace or remove it (the root has no remove). */
interface Slot {
  node: Node;
  label: string;
  replace(next: Node): void;
  remove?(): void;
}

function slotsOf(root: { node: Node }): Slot[] {
  const slots: Slot[] = [{ node: root.node, label: '(root)', replace: (next) => (root.node = next) }];
  const walk = (node: Node, label: string) => {
    if (node.type === 'array') {
      node.items.forEach((child, index) => {
        const at = `${label}[${index}]`;
        slots.push({ node: child, label: at, replace: (next) => (node.items[index] = next), remove: () => node.items.splice(index, 1) });
        walk(child, at);
      });
    } else if (node.type === 'object') {
      node.entries.forEach((entry, index) => {
        const at = label === '(root)' ? entry[0] : `${label}.${entry[0]}`;
        slots.push({ node: entry[1], label: at, replace: (next) => (entry[1] = next), remove: () => node.entries.splice(index, 1) });
        walk(entry[1], at);
      });
    }
  };
  walk(root.node, '(root)');
  return slots;
}

/** Characters slipped into a valid string (so it still passes its pattern and length checks and travels on to storage). */
const TAINTS: readonly RawJson[] = [
  ['NUL', '\\u0000'],
  ['lone high surrogate', '\\ud800'],
  ['lone low surrogate', '\\udfff'],
  ['right-to-left override', '\\u202e'],
  ['newline', '\\n'],
  ['emoji', '😀'],
  ['combining mark', '\\u0301'],
  ['quote and backslash', `'\\"\\\\`],
  ['percent and underscore', '%_'],
].map(([name, json]) => raw(name!, json!));

const isString = (slot: Slot) => slot.node.type === 'raw' && slot.node.json.startsWith('"');

type Mutation =
  | { kind: 'replace'; at: number; value: RawJson }
  | { kind: 'taint'; at: number; taint: RawJson }
  | { kind: 'remove'; at: number }
  | { kind: 'add key'; at: number; key: RawJson; value: RawJson };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), value: hostileJson }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('taint' as const), at: fc.nat(), taint: fc.constantFrom(...TAINTS) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('remove' as const), at: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('add key' as const),
      at: fc.nat(),
      key: fc.constantFrom(...HOSTILE_KEYS),
      value: hostileJson,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('add key' as const),
      at: fc.nat(),
      key: fc.constantFrom(...POLLUTION.keys),
      value: fc.constantFrom(...POLLUTION.values),
    }),
  },
);

/** Applies the mutations in turn (each picks its node by index, modulo the nodes there are); returns the JSON text and what was done. */
function mutate(example: unknown, mutations: Mutation[]): { json: string; label: string } {
  const root = { node: toNode(example) };
  const done: string[] = [];
  for (const m of mutations) {
    const fits = {
      replace: () => true,
      taint: isString,
      remove: (slot: Slot) => Boolean(slot.remove),
      'add key': (slot: Slot) => slot.node.type === 'object',
    }[m.kind];
    const slots = slotsOf(root).filter(fits);
    const slot = slots[m.at % Math.max(1, slots.length)];
    if (!slot) continue;
    if (m.kind === 'replace') {
      slot.replace({ type: 'raw', json: m.value.json });
      done.push(`${slot.label} = ${m.value.name}`);
    } else if (m.kind === 'taint' && slot.node.type === 'raw') {
      slot.replace({ type: 'raw', json: `${slot.node.json.slice(0, -1)}${m.taint.json}"` });
      done.push(`${slot.label} += ${m.taint.name}`);
    } else if (m.kind === 'remove') {
      slot.remove!();
      done.push(`${slot.label} removed`);
    } else if (m.kind === 'add key' && slot.node.type === 'object') {
      slot.node.entries.push([m.key.json, { type: 'raw', json: m.value.json }]);
      done.push(`${slot.label}[${m.key.name}] = ${m.value.name}`);
    }
  }
  return { json: serialise(root.node), label: done.join('; ') };
}

/** A body as it travels: bytes and the Content-Type (and Content-Encoding) sent with them. */
export interface BodyCase {
  label: string;
  headers: Record<string, string>;
  bytes: Buffer;
}

const jsonBody = (label: string, json: string): BodyCase => ({
  label,
  headers: { 'Content-Type': 'application/json' },
  bytes: Buffer.from(json),
});

/** One to `max` mutations, or none in one case of eight. */
function fewMutations<M>(one: fc.Arbitrary<M>, max: number): fc.Arbitrary<M[]> {
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant<M[]>([]) },
    { weight: 7, arbitrary: fc.array(one, { minLength: 1, maxLength: max }) },
  );
}

/** (a) An example with one to three mutations, or untouched now and then (so valid writes also run). */
export function mutatedJson(examples: readonly unknown[]): fc.Arbitrary<BodyCase> {
  return fc.record({ example: fc.constantFrom(...examples), mutations: fewMutations(mutation, 3) }).map(({ example, mutations }) => {
    const { json, label } = mutate(example, mutations);
    return jsonBody(label ? `example with ${label}` : 'example as is', json);
  });
}

/** (b) Wholly random JSON. */
export const randomJson: fc.Arbitrary<BodyCase> = fc.jsonValue().map((value) => jsonBody('random JSON', JSON.stringify(value) ?? 'null'));

// ---------------------------------------------------------------------------
// Flat fields: urlencoded forms and query strings
// ---------------------------------------------------------------------------

/** Percent-encodes the UTF-8 bytes of text (a lone surrogate travels as U+FFFD, like a browser sends it). */
export function percentEncode(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const char = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-_.~]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Encoded text the decoders trip on: truncated or invalid UTF-8, NUL, a lone surrogate's bytes, overlong forms. */
export const BROKEN_PERCENT = [
  '%',
  '%%',
  '%zz',
  '%E0%A4%A',
  '%00',
  'a%00b',
  '%ED%A0%80',
  '%ED%BF%BF',
  '%C0%80',
  '%FF%FE',
  '%F4%90%80%80',
  '+',
  '&&',
  '==',
  '%26',
  '%3D',
];

/** A field value, encoded: hostile text, broken escapes, or long values of `longLength` characters. */
export function hostileFieldValue(longLength: number): fc.Arbitrary<{ name: string; encoded: string }> {
  const longValues = [
    { name: `${longLength} chars`, encoded: 'a'.repeat(longLength) },
    { name: `${longLength} encoded non-ASCII chars`, encoded: '%C3%A9'.repeat(Math.floor(longLength / 6)) },
  ];
  const texts = ['', ' ', '-1', '0', '1e400', '9007199254740993', 'true', 'null', '[]', '{}', ...TRICKY_TEXT];
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...texts).map((text) => ({ name: JSON.stringify(text), encoded: percentEncode(text) })) },
    { weight: 3, arbitrary: fc.constantFrom(...BROKEN_PERCENT).map((encoded) => ({ name: `raw ${encoded}`, encoded })) },
    { weight: 1, arbitrary: fc.constantFrom(...longValues) },
    { weight: 2, arbitrary: anyText.map((text) => ({ name: `random ${JSON.stringify(text)}`, encoded: percentEncode(text) })) },
  );
}

/** Field names that become prototype keys, brackets, duplicates of the known ones, or broken escapes. */
function hostileFieldName(known: readonly string[]): fc.Arbitrary<string> {
  const names = [
    '__proto__',
    '__proto__[polluted]',
    'constructor',
    'constructor[prototype][polluted]',
    'prototype',
    'a[b]',
    '[]',
    '',
    'hardware.__proto__',
    'k'.repeat(2000),
  ];
  return fc.oneof(
    fc.constantFrom(...names).map(percentEncode),
    fc.constantFrom(...BROKEN_PERCENT),
    anyText.map(percentEncode),
    ...(known.length
      ? [
          fc.constantFrom(...known).map((name) => `${percentEncode(name)}%5B%5D`),
          fc.constantFrom(...known).map((name) => `${percentEncode(name)}[x]`),
        ]
      : []),
  );
}

/** name=value pairs, both already encoded. */
export type Fields = [string, string][];

/** Encoded characters appended to a valid value (the encoded twins of TAINTS, and a broken escape). */
const FIELD_TAINTS = ['%00', '%ED%A0%80', '%E2%80%AE', '%0A', '%F0%9F%98%80', '%CC%81', '%27%22%5C', '%25_', '%'];

type FieldMutation =
  | { kind: 'replace'; at: number; value: { name: string; encoded: string } }
  | { kind: 'taint'; at: number; taint: string }
  | { kind: 'remove'; at: number }
  | { kind: 'repeat'; at: number; value: { name: string; encoded: string } }
  | { kind: 'add'; name: string; value: { name: string; encoded: string } };

function fieldMutation(known: readonly string[], longLength: number): fc.Arbitrary<FieldMutation> {
  const value = hostileFieldValue(longLength);
  return fc.oneof(
    { weight: 5, arbitrary: fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), value }) },
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('taint' as const), at: fc.nat(), taint: fc.constantFrom(...FIELD_TAINTS) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('remove' as const), at: fc.nat() }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('repeat' as const), at: fc.nat(), value }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('add' as const), name: hostileFieldName(known), value }) },
  );
}

function mutateFields(base: Fields, mutations: FieldMutation[]): { fields: Fields; label: string } {
  const fields = base.map(([name, value]) => [name, value] as [string, string]);
  const done: string[] = [];
  for (const m of mutations) {
    if (m.kind === 'add') {
      fields.push([m.name, m.value.encoded]);
      done.push(`+${m.name.slice(0, 60)}=${m.value.name}`);
      continue;
    }
    if (fields.length === 0) continue;
    const index = m.at % fields.length;
    const [name, value] = fields[index]!;
    if (m.kind === 'taint') {
      fields[index] = [name, `${value}${m.taint}`];
      done.push(`${name}+=raw ${m.taint}`);
    } else if (m.kind === 'remove') {
      fields.splice(index, 1);
      done.push(`-${name}`);
    } else {
      if (m.kind === 'replace') fields[index] = [name, m.value.encoded];
      else fields.push([name, m.value.encoded]);
      done.push(`${name}${m.kind === 'repeat' ? ' again' : ''}=${m.value.name}`);
    }
  }
  return { fields, label: done.join(' ') };
}

/** Fields with one to four mutations (or none in one case of eight). */
export function mutatedFields(
  base: fc.Arbitrary<Fields>,
  known: readonly string[],
  longLength: number,
): fc.Arbitrary<{ text: string; label: string }> {
  return fc.record({ base, mutations: fewMutations(fieldMutation(known, longLength), 4) }).map(({ base, mutations }) => {
    const { fields, label } = mutateFields(base, mutations);
    return { text: fields.map(([name, value]) => `${name}=${value}`).join('&'), label: label || 'as is' };
  });
}

export function encodeFields(values: Record<string, string>): Fields {
  return Object.entries(values).map(([name, value]) => [percentEncode(name), percentEncode(value)]);
}

/** (c) Bodies of the wrong kind: other content types, broken JSON, encodings the parsers refuse, too large. */
export function wrongContentType(validJson: string): fc.Arbitrary<BodyCase> {
  const cases: BodyCase[] = [
    { label: 'JSON sent as text/plain', headers: { 'Content-Type': 'text/plain' }, bytes: Buffer.from(validJson) },
    { label: 'JSON without a Content-Type', headers: {}, bytes: Buffer.from(validJson) },
    { label: 'JSON as application/vnd.api+json', headers: { 'Content-Type': 'application/vnd.api+json' }, bytes: Buffer.from(validJson) },
    { label: 'JSON declared UTF-16', headers: { 'Content-Type': 'application/json; charset=utf-16' }, bytes: Buffer.from(validJson) },
    {
      label: 'JSON with an unknown charset',
      headers: { 'Content-Type': 'application/json; charset=klingon' },
      bytes: Buffer.from(validJson),
    },
    {
      label: 'JSON gzip-declared, not gzipped',
      headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
      bytes: Buffer.from(validJson),
    },
    {
      label: 'JSON with an unknown Content-Encoding',
      headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'bogus' },
      bytes: Buffer.from(validJson),
    },
    { label: 'multipart without a boundary', headers: { 'Content-Type': 'multipart/form-data' }, bytes: Buffer.from('junk') },
    {
      label: 'multipart junk',
      headers: { 'Content-Type': 'multipart/form-data; boundary=xyz' },
      bytes: Buffer.from('--xyz\r\nContent-Disposition: form-data; name="__proto__"\r\n\r\n{"polluted":1}\r\n--xyz--'),
    },
    {
      label: 'urlencoded junk',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      bytes: Buffer.from('a=%&__proto__[polluted]=1&b=%ED%A0%80&c=%00&a=2'),
    },
    {
      label: '1,001 form fields',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      bytes: Buffer.from(Array.from({ length: 1001 }, (_, i) => `f${i}=1`).join('&')),
    },
    { label: 'empty JSON body', headers: { 'Content-Type': 'application/json' }, bytes: Buffer.alloc(0) },
    {
      label: 'JSON body too large (1.1 MB)',
      headers: { 'Content-Type': 'application/json' },
      bytes: Buffer.from(JSON.stringify({ pad: 'x'.repeat(1_100_000) })),
    },
    {
      label: 'invalid UTF-8 inside a JSON string',
      headers: { 'Content-Type': 'application/json' },
      bytes: Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xed, 0xa0, 0x80, 0xff]), Buffer.from('"}')]),
    },
    ...['{', '{"a":}', '[1,]', "{'a':1}", '{"a":1}x', 'NaN', '"text"', '123', 'null', '\ufeff{}', '{"a":1,"a":2}', '{"a"\u0000:1}'].map(
      (text) => jsonBody(`malformed or bare JSON ${JSON.stringify(text)}`, text),
    ),
  ];
  return fc.constantFrom(...cases);
}

/** A raw path segment: hostile text, broken escapes, lookalike ids. */
export const hostilePathSegment: fc.Arbitrary<{ name: string; encoded: string }> = fc.oneof(
  fc.constantFrom(
    ...[
      '00000000-0000-4000-8000-000000000000',
      'ffffffff-ffff-ffff-ffff-ffffffffffff',
      '__proto__',
      'constructor',
      'prototype',
      '-1',
      '1e400',
      'null',
      '..',
      '.',
      ' ',
      'x'.repeat(5000),
    ].map((text) => ({
      name: JSON.stringify(text.length > 60 ? `${text.slice(0, 20)}… (${text.length})` : text),
      encoded: percentEncode(text),
    })),
  ),
  fc.constantFrom(...[...BROKEN_PERCENT, '%2F', '%2E%2E', '%5C'].map((encoded) => ({ name: `raw ${encoded}`, encoded }))),
  anyText.filter((text) => text.length > 0).map((text) => ({ name: `random ${JSON.stringify(text)}`, encoded: percentEncode(text) })),
);

/** Header values that can travel (visible ASCII and Latin-1; Node refuses control characters). */
export const hostileHeaderValue: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('', ' ', 'x'.repeat(8000), '\u00ff\u00fe', 'null', '-1', '__proto__', '%00', '"quoted"', 'a,b', 'Bearer'),
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)), maxLength: 300 }),
);
