/**
 * One fuzz case per request: which credentials, path parameters, query string, declared
 * headers and body it carries; how it is turned into the raw request; and what its answer
 * must look like (never a 5xx; a 4xx under /api is `{ error }` JSON, with the validation
 * shape for "Validation failed"; a page's 4xx is HTML; no stack trace; no slow answer).
 */
import fc from 'fast-check';
import type { FuzzApp } from './harness.ts';
import type { RawRequest, RawResponse } from './http.ts';
import {
  encodeFields,
  hostileHeaderValue,
  hostilePathSegment,
  mutatedFields,
  mutatedJson,
  percentEncode,
  randomJson,
  wrongContentType,
  type BodyCase,
  type Fields,
} from './inputs.ts';
import { pathWith, type Credential, type Target } from './targets.ts';

/** Longer than this is a failure (the issue's "back within 5 s"). */
export const SLOW_MS = 5000;
/** Long enough to hurt, short enough that one or two stay under Node's 16 KB limit on the request head. */
const LONG_QUERY_VALUE = 6_000;
/** Form values may be as long as JSON strings: the body limit is 1 MB. */
const LONG_FORM_VALUE = 100_000;

/** Credentials as sent: a working one, none, or a broken one (bad key, session without its CSRF token). */
type CredentialCase = Credential | 'malformed key' | 'unknown key' | 'session without CSRF token';

export interface FuzzCase {
  credential: CredentialCase;
  /** An htmx request (pages answer fragments). */
  htmx: boolean;
  /** Encoded path segments by parameter; a parameter not here takes its fixture. */
  path: Record<string, { name: string; encoded: string }>;
  query: { text: string; label: string };
  headers: Record<string, string>;
  body?: BodyCase;
}

function credentialCase(target: Target): fc.Arbitrary<CredentialCase> {
  const broken: CredentialCase[] = [
    'malformed key',
    'unknown key',
    ...(target.method === 'GET' ? [] : (['session without CSRF token'] as const)),
  ];
  return fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...target.credentials) },
    { weight: 1, arbitrary: fc.constantFrom<CredentialCase>('none', ...broken) },
  );
}

/** For each name, an entry with a generated value `present` times in `present + absent`. */
function someEntries<V>(
  names: readonly string[],
  value: fc.Arbitrary<V>,
  { present, absent }: { present: number; absent: number },
): fc.Arbitrary<Record<string, V>> {
  const entries = names.map((name) =>
    fc.oneof({ weight: absent, arbitrary: fc.constant([]) }, { weight: present, arbitrary: value.map((v) => [[name, v] as const]) }),
  );
  return fc.tuple(...entries).map((chosen) => Object.fromEntries(chosen.flat()));
}

/** A real id most of the time (so the case reaches past the 404), a hostile segment sometimes. */
function pathCase(target: Target): fc.Arbitrary<FuzzCase['path']> {
  const params = [...target.path.matchAll(/:(\w+)/g)].map((match) => match[1]!);
  return someEntries(params, hostilePathSegment, { present: 1, absent: 4 });
}

/** Some of the known parameters with valid values, then hostile mutations (values, repeats, brackets, unknown names). */
function queryCase(target: Target): fc.Arbitrary<FuzzCase['query']> {
  const known = target.queryParams.map((param) => param.name);
  const base: fc.Arbitrary<Fields> = target.queryParams.length
    ? fc
        .subarray(target.queryParams, { maxLength: Math.min(4, target.queryParams.length) })
        .chain((params) =>
          params.length
            ? fc.tuple(...params.map((param) => param.valid.map((value) => [percentEncode(param.name), value] as [string, string])))
            : fc.constant([] as Fields),
        )
    : fc.constant([]);
  return mutatedFields(base, known, LONG_QUERY_VALUE);
}

/** The declared request headers: a valid-looking or a hostile value, or left out. */
function headersCase(target: Target): fc.Arbitrary<Record<string, string>> {
  return someEntries(target.headerNames, fc.oneof(hostileHeaderValue, fc.uuid()), { present: 4, absent: 1 });
}

function bodyCase(target: Target): fc.Arbitrary<BodyCase> {
  const someExample = JSON.stringify(target.jsonExamples[0] ?? {});
  const bodies: fc.WeightedArbitrary<BodyCase>[] = [
    { weight: 6, arbitrary: mutatedJson(target.jsonExamples) },
    { weight: 1, arbitrary: randomJson },
    { weight: 2, arbitrary: wrongContentType(someExample) },
  ];
  if (target.formExamples.length) {
    // Pages get their forms: urlencoded, mutated like a query string but with 100k values.
    const known = Object.keys(target.formExamples[0]!);
    const form = mutatedFields(fc.constantFrom(...target.formExamples).map(encodeFields), known, LONG_FORM_VALUE).map(
      ({ text, label }): BodyCase => ({
        label: `form ${label}`,
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        bytes: Buffer.from(text),
      }),
    );
    bodies.push({ weight: 8, arbitrary: form });
  }
  return fc.oneof(...bodies);
}

export function caseArbitrary(target: Target): fc.Arbitrary<FuzzCase> {
  const write = target.method !== 'GET';
  return fc.record({
    credential: credentialCase(target),
    htmx: target.json ? fc.constant(false) : fc.boolean(),
    path: pathCase(target),
    // Writes keep a clean query string: their input is the body.
    query: write ? fc.constant({ text: '', label: '' }) : queryCase(target),
    headers: headersCase(target),
    ...(write ? { body: bodyCase(target) } : {}),
  });
}

export function requestOf(app: FuzzApp, target: Target, fuzzCase: FuzzCase, requestId: string): RawRequest {
  const path = pathWith(target.path, app.ids, (param) => fuzzCase.path[param]?.encoded);
  const headers: Record<string, string> = { 'X-Request-Id': requestId, ...fuzzCase.headers, ...(fuzzCase.body?.headers ?? {}) };
  if (fuzzCase.htmx) headers['HX-Request'] = 'true';
  switch (fuzzCase.credential) {
    case 'key':
      Object.assign(headers, app.keyHeaders());
      break;
    case 'session':
      Object.assign(headers, app.sessionHeaders());
      break;
    case 'session without CSRF token':
      headers.Cookie = app.sessionHeaders().Cookie!;
      break;
    case 'malformed key':
      headers.Authorization = 'Bearer';
      break;
    case 'unknown key':
      headers.Authorization = `Bearer bhk_${'0'.repeat(40)}`;
      break;
  }
  return {
    method: target.method,
    target: fuzzCase.query.text ? `${path}?${fuzzCase.query.text}` : path,
    headers,
    body: fuzzCase.body?.bytes,
  };
}

/** A readable one-line account of a case (bodies can be 1 MB). */
export function describeCase(fuzzCase: FuzzCase, request: RawRequest): string {
  const parts = [`${request.method} ${truncate(request.target, 200)}`, `credential: ${fuzzCase.credential}`];
  if (fuzzCase.htmx) parts.push('htmx');
  const pathParts = Object.entries(fuzzCase.path).map(([param, segment]) => `:${param}=${segment.name}`);
  if (pathParts.length) parts.push(`path ${pathParts.join(', ')}`);
  if (fuzzCase.query.label) parts.push(`query: ${truncate(fuzzCase.query.label, 200)}`);
  const headerNames = Object.keys(fuzzCase.headers);
  if (headerNames.length)
    parts.push(`headers: ${headerNames.map((name) => `${name}=${truncate(JSON.stringify(fuzzCase.headers[name]), 60)}`).join(', ')}`);
  if (fuzzCase.body) {
    parts.push(
      `body: ${truncate(fuzzCase.body.label, 300)}`,
      `${JSON.stringify(fuzzCase.body.headers)}, ${fuzzCase.body.bytes.length} bytes: ${truncate(fuzzCase.body.bytes.toString('utf8'), 300)}`,
    );
  }
  return parts.join(' | ');
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
}

// Node's and V8's stack frames: "    at fn (/path/file.ts:12:3)".
const STACK_FRAME = /\n\s+at .+:\d+:\d+\)?/;

/** What is wrong with an answer, or undefined. */
export function problemWith(target: Target, res: RawResponse): string | undefined {
  if (res.status >= 500) return `${res.status} answer`;
  // Node's HTTP parser refuses a request head over 16 KB before the app sees it: nothing to shape.
  if (res.status === 431 && res.body.length === 0) return undefined;
  if (res.ms > SLOW_MS) return `answered after ${Math.round(res.ms)} ms`;
  const text = res.body.toString('utf8');
  if (STACK_FRAME.test(text)) return 'stack trace in the body';
  if (res.status < 400) return undefined;
  const contentType = String(res.headers['content-type'] ?? '');
  if (!target.json)
    return contentType.startsWith('text/html') ? undefined : `${res.status} page answer is ${contentType || 'no content type'}, not HTML`;
  if (!contentType.startsWith('application/json')) return `${res.status} API answer is ${contentType || 'no content type'}, not JSON`;
  let body: { error?: unknown; details?: { fieldErrors?: unknown; formErrors?: unknown } };
  try {
    body = JSON.parse(text);
  } catch {
    return `${res.status} API answer is not valid JSON`;
  }
  if (typeof body?.error !== 'string') return `${res.status} API answer has no string "error"`;
  if (res.status === 400 && body.error === 'Validation failed') {
    const { fieldErrors, formErrors } = body.details ?? {};
    if (!fieldErrors || typeof fieldErrors !== 'object' || Array.isArray(fieldErrors) || !Array.isArray(formErrors)) {
      return '400 "Validation failed" without details.fieldErrors (object) and details.formErrors (array)';
    }
  }
  return undefined;
}
