/**
 * What the leaderboard test files share: the revisions' facts, a seeder that submits runs
 * through the API one window apart on the test clock and remembers them by label, and
 * readers of the board (pages, filter tables, CSV and JSON Lines exports). Each file seeds
 * its own database through it, so the files run alone or together alike.
 *
 * Expected values come from spec/interface.md ("Leaderboard", "Errors") and DECISIONS.md
 * ("Buckets"); sort, bestPer and format are the service's own additions (every revision).
 */
import { expect } from 'chai';
import request from 'supertest';
import { createKey, signedUpAgent, type TestContext } from './app.ts';
import { validSubmission } from './fixtures.ts';

export type Body = Record<string, unknown>;
export type Query = Record<string, string>;
export type Row = Body & { id: string; rank: number };

const MINUTE = 60 * 1000;
export const DAY = 24 * 60 * MINUTE;

export interface Revision {
  revision: 1 | 2 | 3;
  resultsPath: '/api/benchmarks' | '/api/speed-tests';
  /** Submission rate-limit window: one run per user per window. */
  windowMs: number;
  /** hardwareName, paramSize, os, backend, modelFamily, isMoE, batchSize, contextLen. */
  extendedFilters: boolean;
}

export const REVISIONS: Revision[] = [
  { revision: 1, resultsPath: '/api/benchmarks', windowMs: 5 * MINUTE, extendedFilters: false },
  { revision: 2, resultsPath: '/api/benchmarks', windowMs: 5 * MINUTE, extendedFilters: true },
  { revision: 3, resultsPath: '/api/speed-tests', windowMs: MINUTE, extendedFilters: true },
];
export const revision = (n: 1 | 2 | 3): Revision => REVISIONS.find((r) => r.revision === n)!;

// ---------------------------------------------------------------------------
// Seeding: runs submitted through the API, one window apart on the test clock
// ---------------------------------------------------------------------------

export interface SeedUser {
  id: string;
  key: string;
  username: string;
}

/** Expected labels, possibly worked out from the seed once it exists. */
export type Expected = string[] | ((seeder: Seeder) => string[]);

export interface Seeder {
  /** The 201 body of each run, by label. */
  runs: Map<string, Body>;
  /** Labels in creation order. */
  order: string[];
  signUp(username: string, options?: { verified?: boolean }): Promise<SeedUser>;
  /** Moves the clock past the user's window, submits `overrides` over the app's defaults. */
  seedRun(label: string, user: SeedUser, overrides?: Body): Promise<Body>;
  reject(...labels: string[]): Promise<void>;
  labelOf(row: Body): string;
  approved(): string[];
  /** The leaderboard's own order: tokSOut descending, ties to the earliest run. */
  ranked(labels: string[]): string[];
  resolve(expected: Expected): string[];
  createdAt(label: string): number;
}

/** Every approved run except these. */
export const allBut =
  (...excluded: string[]) =>
  (seeder: Seeder) =>
    seeder.approved().filter((label) => !excluded.includes(label));

/** Defaults, then overrides; an override of `undefined` drops the field. No ttftMs unless given. */
function payload(defaults: Body, overrides: Body, seq: number): Body {
  // Distinct, not in creation order: 1 + (37 n mod 101) for n < 101.
  const merged = validSubmission({ tokSOut: 1 + ((seq * 37) % 101), ttftMs: undefined, ...defaults, ...overrides });
  return Object.fromEntries(Object.entries(merged).filter(([, value]) => value !== undefined));
}

export function createSeeder(ctx: TestContext, rev: Revision, defaults: Body = {}): Seeder {
  const runs = new Map<string, Body>();
  const order: string[] = [];
  const labelById = new Map<string, string>();
  const rejected = new Set<string>();
  const seeder: Seeder = {
    runs,
    order,
    async signUp(username, { verified = false } = {}) {
      const { agent, csrf } = await signedUpAgent(ctx.app, username);
      const { key } = await createKey(agent, csrf);
      const { id } = await ctx.db('users').where({ username }).first('id');
      // Before any of the user's runs, so each run is stored as the submitter's status.
      if (verified) await ctx.db('users').where({ id }).update({ is_verified: true });
      return { id, key, username };
    },
    async seedRun(label, user, overrides = {}) {
      ctx.clock.advance(rev.windowMs + 1000);
      const body = payload(defaults, overrides, order.length + 1);
      const res = await request(ctx.app).post(rev.resultsPath).set('Authorization', `Bearer ${user.key}`).send(body);
      if (res.status !== 201) throw new Error(`seeding ${label} failed with ${res.status}: ${JSON.stringify(res.body)}`);
      runs.set(label, res.body);
      order.push(label);
      labelById.set(res.body.id, label);
      return res.body;
    },
    async reject(...labels) {
      for (const label of labels) {
        await ctx
          .db('speed_test_runs')
          .where({ id: runs.get(label)!.id })
          .update({ status: 'REJECTED' });
        rejected.add(label);
      }
    },
    labelOf: (row) => labelById.get(row.id as string) ?? `unknown ${String(row.id)}`,
    approved: () => order.filter((label) => !rejected.has(label)),
    ranked: (labels) =>
      [...labels].sort(
        (a, b) => (runs.get(b)!.tokSOut as number) - (runs.get(a)!.tokSOut as number) || order.indexOf(a) - order.indexOf(b),
      ),
    resolve: (expected) => (typeof expected === 'function' ? expected(seeder) : expected),
    createdAt: (label) => Date.parse(runs.get(label)!.createdAt as string),
  };
  return seeder;
}

// ---------------------------------------------------------------------------
// Reading the leaderboard
// ---------------------------------------------------------------------------

/** GET /api/leaderboard; a string is sent as the raw query (repeated parameters). */
export function board(ctx: TestContext, query: Query | string = {}) {
  if (typeof query === 'string') return request(ctx.app).get(`/api/leaderboard?${query}`);
  return request(ctx.app).get('/api/leaderboard').query(query);
}

/** One page of rows, after checking the envelope and that ranks count on from the offset. */
export async function page(ctx: TestContext, query: Query = {}): Promise<{ rows: Row[]; total: number; limit: number; offset: number }> {
  const res = await board(ctx, query);
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  expect(res.type).to.equal('application/json');
  expect(res.body).to.have.all.keys('rows', 'total', 'limit', 'offset');
  const { rows, offset } = res.body as { rows: Row[]; offset: number };
  expect(
    rows.map((row) => row.rank),
    'ranks',
  ).to.deep.equal(rows.map((_, index) => offset + index + 1));
  return res.body;
}

/** Labels of every matching row in rank order (one page of 200), after checking total. */
export async function boardLabels(ctx: TestContext, seeder: Seeder, query: Query): Promise<string[]> {
  const { rows, total } = await page(ctx, { limit: '200', ...query });
  expect(total, 'total').to.equal(rows.length);
  return rows.map((row) => seeder.labelOf(row));
}

export type FilterCase = [name: string, query: Query, expected: Expected];

/** One test per case: exactly the expected runs, in rank order, with the exact total. */
export function filterCases(ctx: TestContext, seeder: Seeder, cases: FilterCase[]): void {
  for (const [name, query, expected] of cases) {
    const text = new URLSearchParams(query).toString();
    it(`${name} (${text})`, async () => {
      expect(await boardLabels(ctx, seeder, query)).to.deep.equal(seeder.ranked(seeder.resolve(expected)));
    });
  }
}

/** An export read to the end as text (JSON Lines is not a type supertest buffers). */
export async function download(ctx: TestContext, query: Query | string) {
  const res = await board(ctx, query)
    .buffer(true)
    .parse((response: any, done: (err: Error | null, body: string) => void) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => done(null, text));
    });
  return { res, text: res.body as string };
}

/** RFC 4180 rows (quoted fields may hold commas, quotes and line breaks). */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c !== '"') field += c;
      else if (text[i + 1] === '"') {
        field += '"';
        i++;
      } else quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else if (c !== '\r') field += c;
  }
  if (field !== '' || row.length > 0) rows.push([...row, field]);
  return rows;
}

/** Header and records of a CSV export. */
export function csvRecords(text: string): { header: string[]; records: Record<string, string>[] } {
  const [header = [], ...rows] = parseCsv(text);
  for (const row of rows) expect(row, 'cells per row').to.have.lengthOf(header.length);
  return { header, records: rows.map((row) => Object.fromEntries(header.map((name, i) => [name, row[i]!]))) };
}

/** Columns a leaderboard CSV must carry whatever else it has. */
export const CSV_COLUMNS = [
  'rank',
  'id',
  'createdAt',
  'hfId',
  'hwClass',
  'hardware',
  'gpuName',
  'cpu',
  'os',
  'engineName',
  'quantization',
  'tokSOut',
  'ttftMs',
  'tokPerWatt',
  'tokPerDollar',
  'plausibility',
  'decodeBoundTokS',
  'plausibilityReason',
  'username',
];

/** Runs `fn` with the clock at `at`, then puts it back (the seed's windows rely on it). */
export async function atTime<T>(ctx: TestContext, at: number | string, fn: () => Promise<T>): Promise<T> {
  const saved = ctx.clock.now();
  ctx.clock.set(new Date(at));
  try {
    return await fn();
  } finally {
    ctx.clock.set(saved);
  }
}
