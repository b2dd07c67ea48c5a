/**
 * What gets fuzzed, derived rather than listed: every API operation of the revision from
 * its declaration (`apiOperations`, with the query and header parameters the served OpenAPI
 * document gives it), and every page route Express registered (the router stack). Page
 * forms have no declaration to take a valid body from, so `PAGE_FORMS` gives one per POST
 * route (most built from the API operation the form shares its schema with); a POST page
 * route missing from it stops the run, so a new form cannot go unfuzzed.
 */
import type { Request } from 'express';
import fc from 'fast-check';
import { apiOperations, openApiPath } from '../../src/api/index.ts';
import type { AuthMode } from '../../src/api/operation.ts';
import { isApiRequest } from '../../src/middleware/request-kind.ts';
import { getRevisionProfile } from '../../src/revisions.ts';
import { TEST_PASSWORD } from '../helpers/app.ts';
import { validSubmission } from '../helpers/fixtures.ts';
import { registeredRoutes } from '../helpers/openapi.ts';
import type { FixtureIds, FuzzApp } from './harness.ts';
import { jsonOf } from './http.ts';
import { anyText, percentEncode } from './inputs.ts';

/** How a request authenticates: the fuzz account's API key or browser session, or not at all. */
export type Credential = 'key' | 'session' | 'none';

export interface QueryParam {
  name: string;
  /** Values the parameter accepts (encoded), so hostile ones sit next to valid ones. */
  valid: fc.Arbitrary<string>;
}

export interface Target {
  /** `r3 POST /api/speed-tests submitSpeedTest`; `--only` matches a substring of it. */
  name: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Express path: `/api/setups/:id`. */
  path: string;
  /** Answers are JSON (API) rather than pages. */
  json: boolean;
  /** The credentials that get past the route's auth. */
  credentials: Credential[];
  queryParams: QueryParam[];
  /** Request headers the operation declares (`Idempotency-Key`). */
  headerNames: string[];
  /** Valid JSON bodies to mutate (writes). */
  jsonExamples: unknown[];
  /** Valid form bodies to mutate (page writes). */
  formExamples: Record<string, string>[];
}

const CREDENTIALS: Record<AuthMode, Credential[]> = {
  public: ['none', 'key', 'session'],
  'key|session': ['key', 'session'],
  session: ['session'],
};

interface JsonSchema {
  type?: string;
  enum?: unknown[];
  format?: string;
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  anyOf?: JsonSchema[];
}

/** Values a documented parameter accepts, from its JSON Schema. */
function validValues(schema: JsonSchema): fc.Arbitrary<string> {
  if (schema.anyOf?.length) return fc.oneof(...schema.anyOf.map(validValues));
  if (schema.enum?.length) return fc.constantFrom(...schema.enum.map(String));
  if (schema.type === 'integer' || schema.type === 'number') {
    const min = Math.max(schema.minimum ?? 0, Number.MIN_SAFE_INTEGER);
    const max = Math.min(schema.maximum ?? 1000, Number.MAX_SAFE_INTEGER);
    return fc.oneof(fc.constantFrom(String(min), String(max)), fc.integer({ min, max }).map(String));
  }
  const dates = fc.date({ min: new Date('2020-01-01'), max: new Date('2030-12-31'), noInvalidDate: true });
  if (schema.format === 'uuid') return fc.uuid();
  if (schema.format === 'date') return dates.map((date) => date.toISOString().slice(0, 10));
  if (schema.format === 'date-time') return dates.map((date) => percentEncode(date.toISOString()));
  return fc.string({ minLength: 1, maxLength: Math.min(schema.maxLength ?? 40, 40) }).map(percentEncode);
}

interface OpenApiParameter {
  in: string;
  name: string;
  schema: JsonSchema;
}

/** A form's fields from a JSON example: nested objects as dotted names (`hardware.gpuName`), values as text. */
function asForm(value: unknown, prefix = ''): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    const name = `${prefix}${key}`;
    if (child === null) fields[name] = '';
    else if (Array.isArray(child)) {
      // A list of numbers is one comma-separated input; a list of objects has no form field.
      if (child.every((item) => typeof item !== 'object')) fields[name] = child.join(',');
    } else if (typeof child === 'object') Object.assign(fields, asForm(child, `${name}.`));
    else fields[name] = String(child);
  }
  return fields;
}

/** A valid body per page form (POST route), as the page's own form would send it. */
function pageForms(
  examplesOf: (operationId: string) => unknown[],
  ids: FixtureIds,
  hasQuality: boolean,
): Record<string, Record<string, string>[]> {
  const submissions = [...examplesOf('submitSpeedTest'), validSubmission()].map((example) => asForm(example));
  const setups = examplesOf('createSetup').map((example) => asForm(example));
  // The suite form posts the registration body as one JSON text (revisions with quality only).
  const suiteForms = hasQuality ? examplesOf('registerQualitySuite').map((example) => ({ suite: JSON.stringify(example) })) : [];
  return {
    '/signup': [{ username: 'fuzzed_user', displayName: 'Fuzzed', password: TEST_PASSWORD }],
    '/signin': [{ username: ids.username, password: TEST_PASSWORD, next: '/settings/keys' }],
    '/signout': [{}],
    // A code nobody asked for: the page answers it as unknown, used or expired.
    '/device': [{ user_code: 'BCDF-GHJK', decision: 'approve' }],
    '/settings/keys': [...examplesOf('createApiKey').map((example) => asForm(example)), { name: 'day form', expiresAt: '2031-01-31' }],
    '/settings/keys/:id/revoke': [{}],
    '/settings/profile/keys/revoke-all': [{}],
    '/settings/setups': setups,
    '/settings/setups/:id': [...setups, ...examplesOf('updateSetup').map((example) => asForm(example))],
    '/settings/setups/:id/default': [{}],
    '/settings/setups/:id/delete': [{}],
    '/submit': submissions,
    '/submit/parse-command': [
      { engineName: 'llama.cpp', 'engineFlags.commandSnippet': 'llama-server -m model.gguf -ngl 99 -c 8192 -fa --temp 0.7' },
    ],
    '/submit/validate': submissions,
    '/submit/check-model': [{ hfId: validSubmission().hfId as string }],
    '/runs/:id/correct': submissions,
    '/runs/:id/withdraw': [{}, { confirm: 'yes' }, { confirm: 'yes', from: 'list' }],
    '/runs/:id/setup': [{ name: 'saved from a run', description: 'fuzz', isDefault: 'true' }],
    '/runs/:id/react': examplesOf('reactToRun').map((example) => ({ ...asForm(example), back: `/runs/${ids.runId}` })),
    '/evals/runs/:id/react': examplesOf('reactToRun').map((example) => ({ ...asForm(example), back: `/evals/runs/${ids.runId}` })),
    // The run form, checked or run (the example's address does not resolve here: a 400 form) and the cancel of the fuzz execution.
    '/evals/:slug/run': ['check', 'run'].map((action) => ({
      baseUrl: 'https://llm.example.net',
      model: 'fuzz-model',
      hfId: String(validSubmission().hfId),
      apiKey: '',
      setupId: '',
      quantization: 'Q4_K_M',
      action,
    })),
    '/evals/executions/:id/cancel': [{}],
    '/settings/profile': [{ displayName: 'Fuzz Admin' }],
    '/settings/profile/password': [{ currentPassword: TEST_PASSWORD, newPassword: TEST_PASSWORD }],
    '/admin/users/:id/verification': [{ verified: 'true' }, { verified: 'false' }],
    '/admin/users/:id/admin': [{ admin: 'true' }, { admin: 'false' }],
    '/admin/runs/:id/reject': [{ reason: 'Implausible numbers', back: 'status=APPROVED&page=1' }],
    '/admin/runs/:id/restore': [{ reason: 'Checked again', back: '' }, {}],
    '/admin/quality/suites/:id/approve': [{ notes: 'Checked the items' }, {}],
    '/admin/quality/suites/:id/reject': [{ notes: 'Task 2 has duplicate items' }],
    '/admin/quality/suites/:id/official': [{ official: 'true' }, { official: 'false', layout: 'row' }],
    '/admin/quality/datasets/:id/approve': [{ notes: '' }],
    '/admin/quality/datasets/:id/reject': [{ notes: 'No license given' }],
    '/admin/quality/runs/:id/approve': [{}],
    '/admin/quality/runs/:id/reject': [{ notes: 'The traces do not match the scores', layout: 'card' }],
    // A name no catalogue device matches, mapped to a catalogue card, and the mapping removed.
    '/admin/hardware/map': [{ kind: 'gpu', name: 'Fuzz Accelerator 9000', device: 'NVIDIA GeForce RTX 4090', page: '1' }],
    '/admin/hardware/unmap': [{ kind: 'gpu', name: 'Fuzz Accelerator 9000', page: '1' }],
    '/evals/new': suiteForms,
    '/evals/new/check': suiteForms,
    '/settings/submissions/suites/:id/edit': suiteForms,
    '/settings/submissions/suites/:id/check': suiteForms,
    '/settings/submissions/:kind/:id/withdraw': [{}],
    ...marketplaceForms(examplesOf, ids),
    ...reportForms(ids),
  };
}

/** The marketplace's page forms (revision 3): the listing form as the page posts it (ticked runs, a text price), and the actions. */
function marketplaceForms(examplesOf: (operationId: string) => unknown[], ids: FixtureIds): Record<string, Record<string, string>[]> {
  if (!ids.marketplace.listingId) return {};
  const listings = examplesOf('createListing').map((example) => ({ ...asForm(example), benchmarkRunIds: ids.runId, listingUrl: '' }));
  return {
    '/settings/listings': listings,
    '/settings/listings/:id': listings,
    '/settings/listings/:id/publish': [{}],
    '/settings/listings/:id/sold': [{}],
    '/settings/listings/:id/remove': [{}],
    // Multipart on the page; a urlencoded body has no file (a 400 naming the field).
    '/settings/listings/:id/images': [{}],
    '/settings/listings/:id/images/:imageId/move': [{ direction: 'up' }, { direction: 'down' }],
    '/settings/listings/:id/images/:imageId/delete': [{}],
    '/admin/listings/:id/remove': [{ reason: 'Counterfeit', back: 'status=ACTIVE' }],
  };
}

/** The report editor's forms (draft, publish, preview), its live preview, delete and the admin's unpublish. */
function reportForms(ids: FixtureIds): Record<string, Record<string, string>[]> {
  const report = {
    title: 'Fuzzed report',
    summary: 'A summary',
    tags: 'gpu, 4090',
    content: '## Results\n\n| a | b |\n|--|--:|\n| 1 | 2 |\n\n- [ ] todo',
    'benchmarkRunIds[]': ids.runId,
  };
  const editor = ['draft', 'publish', 'preview'].map((action) => ({ ...report, action }));
  return {
    '/reports/new': editor.map((form) => ({ ...form, model: `${ids.modelOrg}/${ids.modelName}` })),
    '/reports/preview': [{ content: report.content }],
    '/reports/:id/edit': editor,
    '/reports/:id/delete': [{}],
    // Multipart with a file in the page; a form body has none, so these exercise the refusals.
    '/reports/:id/images': [{}, { image: 'not a file' }],
    '/admin/reports/:id/unpublish': [{ reason: 'Off topic' }],
  };
}

/** Query parameter names a page offers (its inputs and its links' query strings), with the values its links use. */
function pageQueryParams(html: string): QueryParam[] {
  const seen = new Map<string, Set<string>>();
  const note = (name: string, value?: string) => {
    if (!/^[\w.[\]-]{1,64}$/.test(name) || name === '_csrf') return;
    const values = seen.get(name) ?? new Set<string>();
    if (value) values.add(value);
    seen.set(name, values);
  };
  for (const [, name] of html.matchAll(/\bname="([^"]+)"/g)) note(name!);
  for (const [, query] of html.matchAll(/href="[^"?]*\?([^"#]+)"/g)) {
    for (const [name, value] of new URLSearchParams(query!.replace(/&amp;/g, '&'))) note(name, value);
  }
  return [...seen].map(([name, values]) => ({
    name,
    valid: values.size
      ? fc.oneof(fc.constantFrom(...[...values].map(percentEncode)), anyText.map(percentEncode))
      : anyText.map(percentEncode),
  }));
}

/** Fills a route's path parameters with the fixtures' ids (the same rule as `pathWith`). */
export function fixturePath(path: string, ids: FixtureIds): string {
  return pathWith(path, ids, () => undefined);
}

/**
 * The path with each `:param` replaced: by `override(param)` when it gives an encoded
 * segment, else by the fixture a parameter names (by its name, or the resource segment
 * before it: `/runs/:id` is a run).
 */
export function pathWith(path: string, ids: FixtureIds, override: (param: string) => string | undefined): string {
  const segments = path.split('/');
  return segments
    .map((segment, index) => {
      if (!segment.startsWith(':')) return segment;
      const param = segment.slice(1);
      return override(param) ?? percentEncode(fixtureValue(param, segments[index - 1] ?? '', ids, path));
    })
    .join('/');
}

function fixtureValue(param: string, resource: string, ids: FixtureIds, path: string): string {
  const quality = qualityFixture(param, resource, ids, path);
  if (quality !== undefined) return quality;
  const byName: Record<string, string> = {
    username: ids.username,
    org: ids.modelOrg,
    model: ids.modelName,
    device: ids.deviceSlug,
    imageId: ids.marketplace.imageId,
    // A storage key the fuzzer's signed URLs never grant: every case is checked before any object is read.
    key: '00000000-0000-4000-8000-000000000000',
  };
  const byResource: Record<string, string> = {
    runs: ids.runId,
    'speed-tests': ids.runId,
    benchmarks: ids.runId,
    hardware: ids.hardwareId,
    setups: ids.setupId,
    reports: ids.reportId,
    keys: ids.spareKeyId,
    users: ids.otherUserId,
    marketplace: ids.marketplace.listingId,
    listings: ids.marketplace.listingId,
  };
  const value = byName[param] ?? byResource[resource];
  if (value === undefined) throw new Error(`fuzz: no fixture for :${param} in ${path}; add one in test/fuzz/targets.ts (fixtureValue)`);
  return value;
}

/** Parameters of the quality routes (under a quality root or its alias): suites and datasets by slug, their runs and submissions. */
function qualityFixture(param: string, resource: string, ids: FixtureIds, path: string): string | undefined {
  if (/^\/api\/(evals|benchmarks)\/execute\/|^\/evals\/executions\//.test(path) && ids.quality.executionId) return ids.quality.executionId;
  if (path.startsWith('/settings/submissions/') && ids.quality.suiteSlug) {
    if (param === 'kind') return 'suite';
    return ids.quality.suiteSubmissionId;
  }
  if (path.startsWith('/evals/') && ids.quality.suiteSlug) {
    // The public quality pages: a suite by slug, a run by id.
    if (param === 'slug') return ids.quality.suiteSlug;
    if (resource === 'runs') return ids.quality.runId;
  }
  if (path.startsWith('/admin/quality/')) {
    // The review pages act on pending items of their own.
    const reviewed: Record<string, string> = {
      suites: ids.quality.reviewSuiteId,
      datasets: ids.quality.reviewDatasetId,
      runs: ids.quality.reviewRunId,
    };
    return reviewed[resource] || undefined;
  }
  if (!/^\/api\/(evals|benchmarks)\/(suites|datasets|runs|submissions)\//.test(path) || !ids.quality.suiteSlug) return undefined;
  if (resource === 'suites') return ids.quality.suiteSlug;
  if (resource === 'datasets') return ids.quality.datasetSlug;
  if (resource === 'runs') return ids.quality.runId;
  if (param === 'kind') return 'suite';
  if (resource === 'dataset') return ids.quality.datasetSubmissionId;
  if (path.includes('/submissions/')) return ids.quality.suiteSubmissionId;
  return undefined;
}

export async function buildTargets(app: FuzzApp): Promise<Target[]> {
  const profile = getRevisionProfile(app.revision);
  const operations = apiOperations(profile);
  const document = jsonOf(await app.http.get('/api/openapi.json')) as {
    paths: Record<string, Record<string, { parameters?: OpenApiParameter[] }>>;
  };
  const prefix = `r${app.revision}`;

  const examplesOf = (operationId: string): unknown[] => {
    const op = operations.find((candidate) => candidate.operationId === operationId);
    if (!op?.body?.examples) throw new Error(`fuzz: operation ${operationId} has no body examples in revision ${app.revision}`);
    return Object.values(op.body.examples).map((example) => example.value);
  };

  const apiTargets: Target[] = operations.map((op) => {
    const parameters = document.paths[openApiPath(op.path)]?.[op.method]?.parameters ?? [];
    const examples = op.body ? Object.values(op.body.examples ?? {}).map((example) => example.value) : [];
    // Submissions also get the suite's own valid submission (a model the fake hub knows).
    if (op.body?.component === 'SpeedTestSubmission') examples.push(validSubmission());
    return {
      name: `${prefix} ${op.method.toUpperCase()} ${op.path} ${op.operationId}`,
      method: op.method.toUpperCase() as Target['method'],
      path: op.path,
      json: true,
      credentials: CREDENTIALS[op.auth],
      queryParams: parameters.filter((p) => p.in === 'query').map((p) => ({ name: p.name, valid: validValues(p.schema) })),
      headerNames: parameters.filter((p) => p.in === 'header').map((p) => p.name),
      jsonExamples: op.method === 'get' ? [] : examples.length ? examples : [{}],
      formExamples: [],
    };
  });

  const forms = pageForms(examplesOf, app.ids, profile.quality !== null);
  const pageTargets: Target[] = [];
  for (const route of registeredRoutes(app.express)) {
    if (route.path.startsWith('/api/')) continue; // the declarations above cover these
    const method = route.method.toUpperCase() as Target['method'];
    const json = isApiRequest({ originalUrl: route.path } as Request);
    let queryParams: QueryParam[] = [];
    if (method === 'GET') {
      const page = await app.http.get(fixturePath(route.path, app.ids), app.sessionHeaders());
      queryParams = pageQueryParams(page.body.toString('utf8'));
    }
    const formExamples = method === 'GET' ? [] : forms[route.path];
    if (!formExamples)
      throw new Error(`fuzz: page route ${method} ${route.path} has no valid form body; add one to pageForms in test/fuzz/targets.ts`);
    pageTargets.push({
      name: `${prefix} ${method} ${route.path}`,
      method,
      path: route.path,
      json,
      // Pages are fuzzed as the admin, who may open every page (signed out now and then, like every target).
      credentials: ['session'],
      queryParams,
      headerNames: [],
      jsonExamples: formExamples ?? [],
      formExamples: formExamples ?? [],
    });
  }
  return [...apiTargets, ...pageTargets];
}
