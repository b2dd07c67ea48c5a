import { expect } from 'chai';
import request from 'supertest';
import { usdPerUnit } from '../../src/data/fx-rates.ts';
import { createKey, signedUpAgent, useTestApp, type TestContext } from '../helpers/app.ts';
import { fakeHubModels } from '../helpers/fake-hub.ts';
import { validSubmission } from '../helpers/fixtures.ts';
import { expectValidationFailed } from '../helpers/assertions.ts';

// Expected values come from spec/interface.md ("Leaderboard", "Errors") and DECISIONS.md
// ("Buckets"); sort, bestPer and format are the service's own additions (every revision).

type Body = Record<string, unknown>;
type Query = Record<string, string>;
type Row = Body & { id: string; rank: number };

const MINUTE = 60 * 1000;
const DAY = 24 * 60 * MINUTE;

interface Revision {
  revision: 1 | 2 | 3;
  resultsPath: '/api/benchmarks' | '/api/speed-tests';
  /** Submission rate-limit window: one run per user per window. */
  windowMs: number;
  /** hardwareName, paramSize, os, backend, modelFamily, isMoE, batchSize, contextLen. */
  extendedFilters: boolean;
}

const REVISIONS: Revision[] = [
  { revision: 1, resultsPath: '/api/benchmarks', windowMs: 5 * MINUTE, extendedFilters: false },
  { revision: 2, resultsPath: '/api/benchmarks', windowMs: 5 * MINUTE, extendedFilters: true },
  { revision: 3, resultsPath: '/api/speed-tests', windowMs: MINUTE, extendedFilters: true },
];
const revision = (n: 1 | 2 | 3): Revision => REVISIONS.find((r) => r.revision === n)!;

/** A valid value of each revision-2 parameter (revision 1 must call each one unknown). */
const EXTENDED_PARAMS: Query = {
  hardwareName: 'rtx',
  paramSize: '7',
  os: 'linux',
  backend: 'cuda',
  modelFamily: 'llama',
  isMoE: 'false',
  batchSize: '1',
  contextLen: '2048',
};

// ---------------------------------------------------------------------------
// Seeding: runs submitted through the API, one window apart on the test clock
// ---------------------------------------------------------------------------

interface SeedUser {
  id: string;
  key: string;
  username: string;
}

/** Expected labels, possibly worked out from the seed once it exists. */
type Expected = string[] | ((seeder: Seeder) => string[]);

interface Seeder {
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
const allBut =
  (...excluded: string[]) =>
  (seeder: Seeder) =>
    seeder.approved().filter((label) => !excluded.includes(label));

/** Defaults, then overrides; an override of `undefined` drops the field. No ttftMs unless given. */
function payload(defaults: Body, overrides: Body, seq: number): Body {
  // Distinct, not in creation order: 1 + (37 n mod 101) for n < 101.
  const merged = validSubmission({ tokSOut: 1 + ((seq * 37) % 101), ttftMs: undefined, ...defaults, ...overrides });
  return Object.fromEntries(Object.entries(merged).filter(([, value]) => value !== undefined));
}

function createSeeder(ctx: TestContext, rev: Revision, defaults: Body = {}): Seeder {
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
        await ctx.db('speed_test_runs').where({ id: runs.get(label)!.id }).update({ status: 'REJECTED' });
        rejected.add(label);
      }
    },
    labelOf: (row) => labelById.get(row.id as string) ?? `unknown ${String(row.id)}`,
    approved: () => order.filter((label) => !rejected.has(label)),
    ranked: (labels) =>
      [...labels].sort((a, b) => (runs.get(b)!.tokSOut as number) - (runs.get(a)!.tokSOut as number) || order.indexOf(a) - order.indexOf(b)),
    resolve: (expected) => (typeof expected === 'function' ? expected(seeder) : expected),
    createdAt: (label) => Date.parse(runs.get(label)!.createdAt as string),
  };
  return seeder;
}

// ---------------------------------------------------------------------------
// Reading the leaderboard
// ---------------------------------------------------------------------------

/** GET /api/leaderboard; a string is sent as the raw query (repeated parameters). */
function board(ctx: TestContext, query: Query | string = {}) {
  if (typeof query === 'string') return request(ctx.app).get(`/api/leaderboard?${query}`);
  return request(ctx.app).get('/api/leaderboard').query(query);
}

/** One page of rows, after checking the envelope and that ranks count on from the offset. */
async function page(ctx: TestContext, query: Query = {}): Promise<{ rows: Row[]; total: number; limit: number; offset: number }> {
  const res = await board(ctx, query);
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  expect(res.type).to.equal('application/json');
  expect(res.body).to.have.all.keys('rows', 'total', 'limit', 'offset');
  const { rows, offset } = res.body as { rows: Row[]; offset: number };
  expect(rows.map((row) => row.rank), 'ranks').to.deep.equal(rows.map((_, index) => offset + index + 1));
  return res.body;
}

/** Labels of every matching row in rank order (one page of 200), after checking total. */
async function boardLabels(ctx: TestContext, seeder: Seeder, query: Query): Promise<string[]> {
  const { rows, total } = await page(ctx, { limit: '200', ...query });
  expect(total, 'total').to.equal(rows.length);
  return rows.map((row) => seeder.labelOf(row));
}

type FilterCase = [name: string, query: Query, expected: Expected];

/** One test per case: exactly the expected runs, in rank order, with the exact total. */
function filterCases(ctx: TestContext, seeder: Seeder, cases: FilterCase[]): void {
  for (const [name, query, expected] of cases) {
    const text = new URLSearchParams(query).toString();
    it(`${name} (${text})`, async () => {
      expect(await boardLabels(ctx, seeder, query)).to.deep.equal(seeder.ranked(seeder.resolve(expected)));
    });
  }
}

/** The contract's 400 body, with field errors on exactly `fields`. */

/** An export read to the end as text (JSON Lines is not a type supertest buffers). */
async function download(ctx: TestContext, query: Query | string) {
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
function parseCsv(text: string): string[][] {
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
function csvRecords(text: string): { header: string[]; records: Record<string, string>[] } {
  const [header = [], ...rows] = parseCsv(text);
  for (const row of rows) expect(row, 'cells per row').to.have.lengthOf(header.length);
  return { header, records: rows.map((row) => Object.fromEntries(header.map((name, i) => [name, row[i]!]))) };
}

/** Columns a leaderboard CSV must carry whatever else it has. */
const CSV_COLUMNS = ['rank', 'id', 'createdAt', 'hfId', 'hwClass', 'hardware', 'gpuName', 'cpu', 'os', 'engineName', 'quantization', 'tokSOut', 'ttftMs', 'tokPerWatt', 'tokPerDollar', 'username'];

/** Runs `fn` with the clock at `at`, then puts it back (the seed's windows rely on it). */
async function atTime<T>(ctx: TestContext, at: number | string, fn: () => Promise<T>): Promise<T> {
  const saved = ctx.clock.now();
  ctx.clock.set(new Date(at));
  try {
    return await fn();
  } finally {
    ctx.clock.set(saved);
  }
}

// ---------------------------------------------------------------------------
// Every revision: the parameter list, the page, shared filters, errors
// ---------------------------------------------------------------------------

const HW_4090 = { hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA GeForce RTX 4090', vramGb: 24, os: 'Ubuntu 24.04' };
const HW_M3_MAX = { hwClass: 'UNIFIED', chipVendor: 'Apple', chipFamily: 'M3', chipVariant: 'Max', unifiedMemoryGb: 128, os: 'macOS 15' };
const HW_XEON = { hwClass: 'CPU_ONLY', cpu: 'Intel Xeon w9-3495X', ramGb: 64, os: 'Windows 11' };

for (const rev of REVISIONS) {
  describe(`GET /api/leaderboard, revision ${rev.revision}`, () => {
    const ctx = useTestApp({ API_REVISION: String(rev.revision) }, { fakeHub: true });
    const seeder = createSeeder(ctx, rev, { ttftMs: 200 });

    before(async () => {
      const ada = await seeder.signUp('ada', { verified: true });
      const bob = await seeder.signUp('bob');
      await seeder.seedRun('s1', ada, { hardware: HW_4090, backend: 'cuda', tokSOut: 50 });
      await seeder.seedRun('s2', bob, { hfId: fakeHubModels.moeByArchitecture, hardware: HW_M3_MAX, engineName: 'mlx', backend: 'metal', contextLength: 4096, tokSOut: 40 });
      await seeder.seedRun('s3', bob, { hfId: fakeHubModels.finetune, hardware: HW_XEON, quantization: 'Q8_0', batchSize: 8, tokSOut: 30 });
      await seeder.seedRun('s4', ada, { hardware: HW_4090, tokSOut: 999 });
      // Same tokSOut as s1, submitted later: ranks right after it.
      await seeder.seedRun('s5', bob, { hardware: HW_4090, tokSOut: 50 });
      await seeder.reject('s4');
    });

    describe('the page', () => {
      it('answers { rows, total, limit, offset }: approved runs by tokSOut, default limit 50, offset 0', async () => {
        const body = await page(ctx);
        expect(body).to.include({ total: 4, limit: 50, offset: 0 });
        expect(body.rows.map((row) => seeder.labelOf(row))).to.deep.equal(['s1', 's5', 's2', 's3']);
      });

      it('gives each row the stored run as submitted, plus its rank', async () => {
        const { rows } = await page(ctx);
        for (const row of rows) {
          const { rank, ...run } = row;
          expect(run, seeder.labelOf(row)).to.deep.equal(seeder.runs.get(seeder.labelOf(row)));
          expect(row).to.include.keys('id', 'model', 'hardware', 'engine', 'engineFlags', 'user', 'tokSOut', 'tokSTotal', 'ttftMs', 'peakVramGb', 'tokPerWatt', 'tokPerDollar', 'createdAt', 'status');
          expect(row.reactionCounts).to.deep.equal({});
          expect(row.myEmoji).to.equal(null);
          expect(row.status).to.equal('APPROVED');
          // tokSPrefill is a revision-2 field.
          if (rev.revision === 1) expect(row).not.to.have.property('tokSPrefill');
          else expect(row).to.have.property('tokSPrefill', null);
        }
        const s2 = rows.find((row) => seeder.labelOf(row) === 's2')!;
        expect(s2.model).to.include({ hfId: fakeHubModels.moeByArchitecture, family: 'mixtral', isMoE: true });
        expect(s2.hardware).to.include({ hwClass: 'UNIFIED', chipFamily: 'M3', unifiedMemoryGb: 128 });
        expect(s2.engine).to.include({ name: 'mlx' });
        expect(s2.user).to.include({ username: 'bob', verified: false });
      });

      it('ranks on from the offset, with the exact total on every page', async () => {
        const second = await page(ctx, { limit: '2', offset: '1' });
        expect(second).to.include({ total: 4, limit: 2, offset: 1 });
        expect(second.rows.map((row) => [seeder.labelOf(row), row.rank])).to.deep.equal([['s5', 2], ['s2', 3]]);
        const beyond = await page(ctx, { offset: '10' });
        expect(beyond).to.include({ total: 4, offset: 10 });
        expect(beyond.rows).to.deep.equal([]);
      });

      it('accepts limit 1 to 200', async () => {
        expect((await page(ctx, { limit: '1' })).rows).to.have.lengthOf(1);
        expect(await page(ctx, { limit: '200' })).to.include({ limit: 200, total: 4 });
      });

      it('never shows a REJECTED run, even when every filter matches it', async () => {
        const query = { hfId: fakeHubModels.dense, hwClass: 'DISCRETE_GPU', memTier: '24', verified: 'true' };
        expect(await boardLabels(ctx, seeder, query)).to.deep.equal(['s1']);
      });

      it('accepts sort, bestPer and format=json in this revision too', async () => {
        for (const sort of ['tokSOut', 'tokSPrefill', 'ttftMs', 'tokPerWatt', 'tokPerDollar']) {
          expect((await page(ctx, { sort })).total, sort).to.equal(4);
        }
        // s1 and s5 share one hardware profile.
        expect(await boardLabels(ctx, seeder, { bestPer: 'hardware' })).to.deep.equal(['s1', 's2', 's3']);
        expect(await boardLabels(ctx, seeder, { format: 'json' })).to.deep.equal(['s1', 's5', 's2', 's3']);
      });
    });

    describe('filters shared by all revisions', () => {
      filterCases(ctx, seeder, [
        ['hfId: that model only, not its finetunes', { hfId: fakeHubModels.dense }, ['s1', 's5']],
        ['hfId, case-insensitively', { hfId: 'FAKEORG/dense-7B' }, ['s1', 's5']],
        ['hfId of a finetune', { hfId: fakeHubModels.finetune }, ['s3']],
        ['hfId of an unknown model', { hfId: 'nobody/none' }, []],
        ['hwClass DISCRETE_GPU', { hwClass: 'DISCRETE_GPU' }, ['s1', 's5']],
        ['hwClass UNIFIED', { hwClass: 'UNIFIED' }, ['s2']],
        ['hwClass CPU_ONLY', { hwClass: 'CPU_ONLY' }, ['s3']],
        ['memTier 24: a 24 GB card', { memTier: '24' }, ['s1', 's5']],
        ['memTier 128: 128 GB unified memory', { memTier: '128' }, ['s2']],
        ['memTier 80: 64 GB of system RAM', { memTier: '80' }, ['s3']],
        ['memTier 8: nothing that small', { memTier: '8' }, []],
        ['engineName', { engineName: 'mlx' }, ['s2']],
        ['engineName llama.cpp', { engineName: 'llama.cpp' }, ['s1', 's5', 's3']],
        ['quantization, exactly', { quantization: 'Q8_0' }, ['s3']],
        ['quantization is case-sensitive', { quantization: 'q8_0' }, []],
        ['quantization is not a substring match', { quantization: 'Q4' }, []],
        ['verified=true', { verified: 'true' }, ['s1']],
        ['verified=false', { verified: 'false' }, ['s5', 's2', 's3']],
        ['two filters together', { hwClass: 'DISCRETE_GPU', verified: 'false' }, ['s5']],
      ]);

      it('since=7d and since=30d count back from the clock on createdAt, to the millisecond', async () => {
        const all = ['s1', 's5', 's2', 's3'];
        const first = seeder.createdAt('s1');
        const last = seeder.createdAt('s5');
        const at = (ms: number, query: Query) => atTime(ctx, ms, () => boardLabels(ctx, seeder, query));
        expect(await at(first + 7 * DAY - 1, { since: '7d' })).to.deep.equal(all);
        expect(await at(first + 7 * DAY + 1, { since: '7d' })).to.deep.equal(['s5', 's2', 's3']);
        expect(await at(last + 7 * DAY + 1, { since: '7d' })).to.deep.equal([]);
        expect(await at(last + 7 * DAY + 1, { since: '30d' })).to.deep.equal(all);
        expect(await at(first + 30 * DAY - 1, { since: '30d' })).to.deep.equal(all);
        expect(await at(first + 30 * DAY + 1, { since: '30d' })).to.deep.equal(['s5', 's2', 's3']);
        expect(await at(last + 30 * DAY + 1, { since: '30d' })).to.deep.equal([]);
        // Without since: all time.
        expect(await at(last + 365 * DAY, {})).to.deep.equal(all);
      });
    });

    if (rev.extendedFilters) {
      describe('revision-2 filters', () => {
        filterCases(ctx, seeder, [
          ['hardwareName: chip family, any case', { hardwareName: 'm3' }, ['s2']],
          ['hardwareName: CPU name', { hardwareName: 'XEON' }, ['s3']],
          ['hardwareName: part of a GPU name', { hardwareName: '4090' }, ['s1', 's5']],
          ['os linux, from "Ubuntu 24.04"', { os: 'linux' }, ['s1', 's5']],
          ['os macos, from "macOS 15"', { os: 'macos' }, ['s2']],
          ['os windows, from "Windows 11"', { os: 'windows' }, ['s3']],
          ['paramSize 7: 7.24 B, finetune included through its own params', { paramSize: '7' }, ['s1', 's5', 's3']],
          ['paramSize 30: 46.7 B', { paramSize: '30' }, ['s2']],
          ['paramSize 1', { paramSize: '1' }, []],
          ['backend, exactly', { backend: 'metal' }, ['s2']],
          ['backend cuda', { backend: 'cuda' }, ['s1']],
          ['modelFamily, any case', { modelFamily: 'LLAMA' }, ['s1', 's5', 's3']],
          ['modelFamily mixtral', { modelFamily: 'mixtral' }, ['s2']],
          ['isMoE=true', { isMoE: 'true' }, ['s2']],
          ['isMoE=false', { isMoE: 'false' }, ['s1', 's5', 's3']],
          ['batchSize 8 (8 or more)', { batchSize: '8' }, ['s3']],
          ['batchSize 1 (the default)', { batchSize: '1' }, ['s1', 's5', 's2']],
          ['contextLen 4096', { contextLen: '4096' }, ['s2']],
          ['contextLen 2048 (the default context length)', { contextLen: '2048' }, ['s1', 's5', 's3']],
        ]);
      });
    } else {
      it('calls each revision-2 parameter unknown (400)', async () => {
        for (const [param, value] of Object.entries(EXTENDED_PARAMS)) {
          const res = await board(ctx, { [param]: value });
          expectValidationFailed(res, [param]);
          expect(res.body.details.fieldErrors[param], param).to.deep.equal(['Unknown field']);
        }
      });
    }

    describe('validation', () => {
      const badValues: [string, string][] = [
        ['hfId', ''],
        ['hfId', `org/${'x'.repeat(253)}`],
        ['hwClass', 'GPU'],
        ['hwClass', 'unified'],
        ['memTier', '10'],
        ['memTier', '0'],
        ['memTier', '256'],
        ['memTier', '24GB'],
        ['engineName', 'LLAMA.CPP'],
        ['engineName', 'no-such-engine'],
        ...(rev.revision === 1 ? [] : [['engineName', 'candle'] as [string, string]]),
        ...(rev.revision === 3 ? [] : [['engineName', 'ember'] as [string, string]]),
        ['quantization', ''],
        ['quantization', 'q'.repeat(65)],
        ['verified', 'yes'],
        ['verified', '1'],
        ['since', '1d'],
        ['since', '90d'],
        ['since', '7'],
        ['limit', '0'],
        ['limit', '201'],
        ['limit', '-1'],
        ['limit', 'abc'],
        ['limit', '2.5'],
        ['limit', ''],
        ['offset', '-1'],
        ['offset', 'x'],
        ['offset', '1.5'],
        ['sort', 'speed'],
        ['sort', 'tokSOut desc'],
        ['bestPer', 'model'],
        ['bestPer', ''],
        ['format', 'xml'],
        ...((rev.extendedFilters
          ? [
              ['hardwareName', ''],
              ['paramSize', '2'],
              ['paramSize', '0'],
              ['paramSize', 'big'],
              ['os', 'android'],
              ['os', 'ubuntu'],
              ['backend', ''],
              ['modelFamily', ''],
              ['isMoE', 'yes'],
              ['batchSize', '0'],
              ['batchSize', '9'],
              ['batchSize', '1.5'],
              ['batchSize', 'x'],
              ['contextLen', '2049'],
              ['contextLen', '1024'],
              ['contextLen', '262144'],
            ]
          : []) as [string, string][]),
      ];
      for (const [param, value] of badValues) {
        it(`answers 400 naming ${param} for ${param}=${JSON.stringify(value.length > 20 ? `${value.slice(0, 12)}…(${value.length})` : value)}`, async () => {
          expectValidationFailed(await board(ctx, { [param]: value }), [param]);
        });
      }

      it('accepts the engine names of this revision only', async () => {
        expect((await board(ctx, { engineName: 'candle' })).status).to.equal(rev.revision === 1 ? 200 : 400);
        expect((await board(ctx, { engineName: 'ember' })).status).to.equal(rev.revision === 3 ? 200 : 400);
      });

      if (rev.extendedFilters) {
        it('accepts every revision-2 parameter', async () => {
          for (const [param, value] of Object.entries(EXTENDED_PARAMS)) {
            const res = await board(ctx, { [param]: value });
            expect(res.status, `${param}: ${JSON.stringify(res.body)}`).to.equal(200);
          }
        });
      }

      it('answers 400 naming each unknown parameter', async () => {
        expectValidationFailed(await board(ctx, { foo: '1' }), ['foo']);
        expectValidationFailed(await board(ctx, { hfid: fakeHubModels.dense, page: '2', memTier: '24' }), ['hfid', 'page']);
        expectValidationFailed(await board(ctx, { sortBy: 'ttftMs', format: 'csv' }), ['sortBy']);
      });

      const repeated: [string, string][] = [
        ['memTier=8&memTier=12', 'memTier'],
        ['memTier=24&memTier=24', 'memTier'],
        ['hfId=fakeorg/Dense-7B&hfId=fakeorg/Gated-13B', 'hfId'],
        ['verified=true&verified=false', 'verified'],
        ['limit=5&limit=6', 'limit'],
        ['offset=0&offset=1', 'offset'],
        ['sort=tokSOut&sort=ttftMs', 'sort'],
        ['format=csv&format=csv', 'format'],
        ...((rev.extendedFilters ? [['os=linux&os=macos', 'os'], ['hardwareName=a&hardwareName=b', 'hardwareName']] : []) as [string, string][]),
      ];
      for (const [query, param] of repeated) {
        it(`answers 400 naming ${param} when it is given twice (${query})`, async () => {
          const res = await board(ctx, query);
          expectValidationFailed(res, [param]);
          expect(res.headers['content-disposition']).to.equal(undefined);
        });
      }
    });

    describe('exports', () => {
      it('downloads CSV named after the clock date, every row whatever limit and offset say', async () => {
        const { res, text } = await atTime(ctx, '2030-02-03T23:59:59.999Z', () => download(ctx, { format: 'csv', limit: '1', offset: '2' }));
        expect(res.status).to.equal(200);
        expect(res.headers['content-type']).to.equal('text/csv; charset=utf-8');
        expect(res.headers['content-disposition']).to.equal('attachment; filename="leaderboard-2030-02-03.csv"');
        const { header, records } = csvRecords(text);
        expect(header).to.include.members(CSV_COLUMNS);
        expect(records.map((r) => [r.rank, seeder.labelOf({ id: r.id })])).to.deep.equal([['1', 's1'], ['2', 's5'], ['3', 's2'], ['4', 's3']]);
      });

      it('downloads JSON Lines named after the clock date', async () => {
        const { res, text } = await atTime(ctx, '2031-12-31T00:00:00.000Z', () => download(ctx, { format: 'jsonl' }));
        expect(res.status).to.equal(200);
        expect(res.headers['content-type']).to.equal('application/x-ndjson; charset=utf-8');
        expect(res.headers['content-disposition']).to.equal('attachment; filename="leaderboard-2031-12-31.jsonl"');
        const lines = text.split('\n');
        expect(lines.pop()).to.equal('');
        expect(lines.map((line) => seeder.labelOf(JSON.parse(line)))).to.deep.equal(['s1', 's5', 's2', 's3']);
      });

      it('sends the CSV header line alone, and an empty JSON Lines body, when nothing matches', async () => {
        const csv = await download(ctx, { format: 'csv', hfId: 'nobody/none' });
        expect(csv.res.status).to.equal(200);
        expect(csv.text.endsWith('\n')).to.equal(true);
        const lines = csv.text.split('\n').filter(Boolean);
        expect(lines).to.have.lengthOf(1);
        expect(lines[0]!.split(',')).to.include.members(CSV_COLUMNS);
        const jsonl = await download(ctx, { format: 'jsonl', hfId: 'nobody/none' });
        expect(jsonl.res.status).to.equal(200);
        expect(jsonl.text).to.equal('');
      });

      it('validates the parameters of an export like a page', async () => {
        const res = await board(ctx, { format: 'csv', memTier: '10' });
        expectValidationFailed(res, ['memTier']);
        expect(res.headers['content-disposition']).to.equal(undefined);
      });
    });
  });
}

// ---------------------------------------------------------------------------
// Revision 1: ordering, paging, ties and the base filters over more than a page
// ---------------------------------------------------------------------------

describe('GET /api/leaderboard, revision 1: ordering and paging over 58 runs', () => {
  const ctx = useTestApp({ API_REVISION: '1' }, { fakeHub: true });
  const FILLER_MODEL = 'handorg/Filler-1B';
  const seeder = createSeeder(ctx, revision(1), {
    hfId: FILLER_MODEL,
    hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'Filler GPU', vramGb: 8 },
    ttftMs: 150,
  });
  const RTX_4090 = { hwClass: 'DISCRETE_GPU', gpuName: 'RTX 4090', vramGb: 24 };
  const FILLERS = Array.from({ length: 46 }, (_, i) => `f${i}`);
  const SPECIAL = ['d24', 'tune', 'candle', 'q8', 'uni16', 'cpu64', 'two12', 'odd245'];
  const VERIFIED = ['q8', 'two12', 'tie2'];

  before(async () => {
    await ctx.db('models').insert({ hf_id: FILLER_MODEL, display_name: 'Filler-1B', family: 'llama', params: 1.1 });
    const ann = await seeder.signUp('ann', { verified: true });
    const ben = await seeder.signUp('ben');
    const cat = await seeder.signUp('cat');
    const special: [string, SeedUser, Body][] = [
      ['tie1', ben, { tokSOut: 500 }],
      ['d24', ben, { hfId: fakeHubModels.dense, hardware: RTX_4090, tokSOut: 300 }],
      ['tune', ben, { hfId: fakeHubModels.finetune, hardware: RTX_4090, tokSOut: 250 }],
      ['tie2', ann, { tokSOut: 500 }],
      ['candle', cat, { engineName: 'candle', tokSOut: 200 }],
      ['q8', ann, { quantization: 'Q8_0', tokSOut: 150 }],
      ['rej', ben, { hardware: RTX_4090, tokSOut: 9999 }],
      ['uni16', cat, { hardware: { hwClass: 'UNIFIED', chipVendor: 'Apple', chipFamily: 'M2', chipVariant: 'Pro', unifiedMemoryGb: 16 }, tokSOut: 120 }],
      ['tie3', cat, { tokSOut: 500 }],
      ['cpu64', ben, { hardware: { hwClass: 'CPU_ONLY', cpu: 'Ryzen 9 7950X', ramGb: 64 }, tokSOut: 100 }],
      ['two12', ann, { hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'RTX 3060', gpuCount: 2, vramGb: 12 }, tokSOut: 90 }],
      ['odd245', cat, { hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'Odd Card', vramGb: 24.5 }, tokSOut: 80 }],
      ['tie4', ben, { tokSOut: 500 }],
    ];
    // Fillers (5.5 .. 235.5, all distinct) with a special run after every fourth.
    for (const [i, label] of FILLERS.entries()) {
      await seeder.seedRun(label, i % 2 === 0 ? ben : cat, { tokSOut: 5 * (1 + ((i * 17) % 47)) + 0.5 });
      if (i % 4 === 3 && special.length > 0) await seeder.seedRun(...special.shift()!);
    }
    for (const args of special) await seeder.seedRun(...args);
    await seeder.reject('rej');
  });

  it('seeds more approved runs than a default page', () => {
    expect(seeder.approved()).to.have.lengthOf(FILLERS.length + SPECIAL.length + 4);
    expect(seeder.approved().length).to.be.greaterThan(50);
  });

  it('shows the first 50 by default, then page 2 ranks on from 51', async () => {
    const expected = seeder.ranked(seeder.approved());
    const first = await page(ctx);
    expect(first).to.include({ total: expected.length, limit: 50, offset: 0 });
    expect(first.rows.map((row) => seeder.labelOf(row))).to.deep.equal(expected.slice(0, 50));
    const second = await page(ctx, { offset: '50' });
    expect(second).to.include({ total: expected.length, limit: 50, offset: 50 });
    expect(second.rows.map((row) => row.rank)).to.deep.equal(expected.slice(50).map((_, i) => 51 + i));
    expect(second.rows.map((row) => seeder.labelOf(row))).to.deep.equal(expected.slice(50));
  });

  it('pages of 7 concatenate to the whole board, in rank order', async () => {
    const expected = seeder.ranked(seeder.approved());
    const labels: string[] = [];
    for (let offset = 0; offset < expected.length; offset += 7) {
      const body = await page(ctx, { limit: '7', offset: String(offset) });
      expect(body).to.include({ total: expected.length, limit: 7, offset });
      labels.push(...body.rows.map((row) => seeder.labelOf(row)));
    }
    expect(labels).to.deep.equal(expected);
    const tokS = (await page(ctx, { limit: '200' })).rows.map((row) => row.tokSOut as number);
    expect(tokS).to.deep.equal([...tokS].sort((a, b) => b - a));
  });

  it('breaks ties on tokSOut by the earliest createdAt, across a page boundary too', async () => {
    const { rows } = await page(ctx, { limit: '4' });
    expect(rows.map((row) => seeder.labelOf(row))).to.deep.equal(['tie1', 'tie2', 'tie3', 'tie4']);
    const created = rows.map((row) => Date.parse(row.createdAt as string));
    expect(created).to.deep.equal([...created].sort((a, b) => a - b));
    const middle = await page(ctx, { limit: '2', offset: '1' });
    expect(middle.rows.map((row) => [seeder.labelOf(row), row.rank])).to.deep.equal([['tie2', 2], ['tie3', 3]]);
    expect(seeder.labelOf((await page(ctx, { limit: '1', offset: '3' })).rows[0]!)).to.equal('tie4');
  });

  it('leaves the REJECTED run (the fastest) out of ranks and totals', async () => {
    const { rows, total } = await page(ctx, { limit: '200' });
    expect(rows.map((row) => seeder.labelOf(row))).not.to.include('rej');
    expect(total).to.equal(seeder.approved().length);
  });

  describe('base filters', () => {
    const defaultHardware = allBut('d24', 'tune', 'uni16', 'cpu64', 'two12', 'odd245');
    filterCases(ctx, seeder, [
      ['hfId: the model, not its finetune', { hfId: fakeHubModels.dense }, ['d24']],
      ['hfId, case-insensitively', { hfId: 'FAKEORG/DENSE-7B' }, ['d24']],
      ['hfId of the finetune', { hfId: fakeHubModels.finetune }, ['tune']],
      ['hfId of a hand-catalogued model', { hfId: FILLER_MODEL }, allBut('d24', 'tune')],
      ['hwClass UNIFIED', { hwClass: 'UNIFIED' }, ['uni16']],
      ['hwClass CPU_ONLY', { hwClass: 'CPU_ONLY' }, ['cpu64']],
      ['hwClass DISCRETE_GPU', { hwClass: 'DISCRETE_GPU' }, allBut('uni16', 'cpu64')],
      ['memTier 8', { memTier: '8' }, defaultHardware],
      ['memTier 16: 16 GB unified', { memTier: '16' }, ['uni16']],
      ['memTier 24: exactly 24 GB, and 2 x 12 GB', { memTier: '24' }, ['d24', 'tune', 'two12']],
      ['memTier 32: 24.5 GB', { memTier: '32' }, ['odd245']],
      ['memTier 80: 64 GB of RAM', { memTier: '80' }, ['cpu64']],
      ['memTier 12', { memTier: '12' }, []],
      ['engineName candle (revision 1 only)', { engineName: 'candle' }, ['candle']],
      ['engineName llama.cpp', { engineName: 'llama.cpp' }, allBut('candle')],
      ['quantization', { quantization: 'Q8_0' }, ['q8']],
      ['verified=true', { verified: 'true' }, VERIFIED],
      ['verified=false', { verified: 'false' }, allBut(...VERIFIED)],
      ['memTier and verified together', { memTier: '24', verified: 'true' }, ['two12']],
    ]);

    it('pages a filtered board with the filtered total', async () => {
      const expected = seeder.ranked(defaultHardware(seeder));
      const body = await page(ctx, { memTier: '8', limit: '5', offset: '5' });
      expect(body).to.include({ total: expected.length, limit: 5, offset: 5 });
      expect(body.rows.map((row) => seeder.labelOf(row))).to.deep.equal(expected.slice(5, 10));
    });
  });
});

// ---------------------------------------------------------------------------
// Revision 3: every filter and bucket edge
// ---------------------------------------------------------------------------

describe('GET /api/leaderboard, revision 3: filters and bucket edges', () => {
  const ctx = useTestApp({ API_REVISION: '3' }, { fakeHub: true });
  const PLAIN = 'handorg/Plain-Model';
  const seeder = createSeeder(ctx, revision(3), {
    hfId: PLAIN,
    hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA RTX A6000', vramGb: 48 },
    contextLength: 8192,
  });

  /** Catalogued by hand (never looked up on the hub): one per paramSize edge. */
  const PARAM_MODELS: [label: string, params: number][] = [
    ['p2', 2],
    ['p2_01', 2.01],
    ['p5', 5],
    ['p10', 10],
    ['p20', 20],
    ['p50', 50],
    ['p90', 90],
    ['p90_5', 90.5],
  ];
  const paramModel = (label: string) => `handorg/Params-${label.slice(1).replace('_', '.')}B`;

  const HARDWARE: [label: string, hardware: Body][] = [
    ['m24', { hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA GeForce RTX 4090', vramGb: 24, os: 'Ubuntu 24.04' }],
    ['m24_5', { hwClass: 'DISCRETE_GPU', gpuName: 'Odd Card', vramGb: 24.5 }],
    ['m16_5', { hwClass: 'DISCRETE_GPU', gpuName: 'Odd Card', vramGb: 16.5 }],
    ['m16', { hwClass: 'DISCRETE_GPU', gpuName: 'RTX 4060 Ti', vramGb: 16, cpu: 'AMD Threadripper 7980X' }],
    ['m2x12', { hwClass: 'DISCRETE_GPU', gpuName: 'RTX 3060', gpuCount: 2, vramGb: 12 }],
    [
      'mhet',
      {
        hwClass: 'DISCRETE_GPU',
        gpus: [
          { gpuName: 'RTX 3090', count: 1, vramGb: 24 },
          { gpuName: 'Tesla P40', count: 2, vramGb: 24 },
        ],
        os: 'Arch Linux',
      },
    ],
    ['mmac', { hwClass: 'UNIFIED', chipVendor: 'Apple', chipFamily: 'M3', chipVariant: 'Max', unifiedMemoryGb: 128, os: 'macOS 15' }],
    ['mstrix', { hwClass: 'UNIFIED', chipVendor: 'AMD', chipFamily: 'Ryzen AI Max', chipVariant: '395', unifiedMemoryGb: 96, os: 'Windows 11' }],
    ['mcpu129', { hwClass: 'CPU_ONLY', cpu: 'AMD EPYC 9654', ramGb: 129, os: 'Debian 12' }],
    ['mcpu8', { hwClass: 'CPU_ONLY', cpu: 'Intel Core i5-12400', ramGb: 8 }],
  ];
  const hardwareOf = (label: string) => HARDWARE.find(([l]) => l === label)![1];
  const OWN_HARDWARE = [...HARDWARE.map(([label]) => label), 'v2'];
  const CONTEXT: [string, number][] = [
    ['c1', 1],
    ['c2048', 2048],
    ['c2049', 2049],
    ['c4096', 4096],
    ['c131072', 131072],
    ['c131073', 131073],
    ['c1m', 1_000_000],
  ];
  const BATCH: [string, number][] = [
    ['b2', 2],
    ['b7', 7],
    ['b8', 8],
    ['b16', 16],
  ];
  const PLAIN_MODEL_RUNS = allBut(...PARAM_MODELS.map(([l]) => l), 'llama', 'tune', 'mix', 'sparse', 'qmoe');

  before(async () => {
    await ctx.db('models').insert([
      { hf_id: PLAIN, display_name: 'Plain-Model', family: 'qwen2', params: null, is_moe: false },
      { hf_id: 'handorg/Qwen3-MoE', display_name: 'Qwen3-MoE', family: 'qwen3_moe', params: 30.5, is_moe: true },
      ...PARAM_MODELS.map(([label, params]) => ({ hf_id: paramModel(label), display_name: paramModel(label).split('/')[1], family: 'phi3', params, is_moe: false })),
    ]);
    const main = await seeder.signUp('main');
    const vera = await seeder.signUp('vera');
    for (const [label, hardware] of HARDWARE) await seeder.seedRun(label, main, { hardware });
    for (const [label] of PARAM_MODELS) await seeder.seedRun(label, main, { hfId: paramModel(label) });
    await seeder.seedRun('llama', main, { hfId: fakeHubModels.dense });
    await seeder.seedRun('tune', main, { hfId: fakeHubModels.finetune });
    await seeder.seedRun('mix', main, { hfId: fakeHubModels.moeByArchitecture });
    await seeder.seedRun('sparse', main, { hfId: fakeHubModels.moeByConfig });
    await seeder.seedRun('qmoe', main, { hfId: 'handorg/Qwen3-MoE' });
    for (const [label, contextLength] of CONTEXT) await seeder.seedRun(label, main, { contextLength });
    for (const [label, batchSize] of BATCH) await seeder.seedRun(label, main, { batchSize });
    await seeder.seedRun('vllm', main, { engineName: 'vllm', backend: 'cuda' });
    await seeder.seedRun('ember', main, { engineName: 'ember' });
    await seeder.seedRun('q8', main, { quantization: 'Q8_0' });
    await seeder.seedRun('rocm', main, { backend: 'rocm' });
    await seeder.seedRun('cuda2', main, { backend: 'cuda', quantization: 'Q8_0' });
    await seeder.seedRun('v1', vera);
    await seeder.seedRun('v2', vera, { hardware: hardwareOf('mmac') });
    // The fastest run, on hardware that many filters match: hidden once rejected.
    await seeder.seedRun('rej', main, { hardware: hardwareOf('m24'), tokSOut: 10_000 });
    await seeder.reject('rej');

    // vera becomes verified after her runs: through the admin page, which updates them too.
    const boss = await signedUpAgent(ctx.app, 'boss');
    await ctx.db('users').where({ username: 'boss' }).update({ is_admin: true });
    await boss.agent.post(`/admin/users/${vera.id}/verification`).type('form').send({ verified: 'true', _csrf: boss.csrf }).expect(303);
  });

  describe('memTier: (previous tier, T] of total memory', () => {
    filterCases(ctx, seeder, [
      ['8: 8 GB of RAM', { memTier: '8' }, ['mcpu8']],
      ['12: nothing', { memTier: '12' }, []],
      ['16: exactly 16 GB', { memTier: '16' }, ['m16']],
      ['24: exactly 24 GB, 16.5 GB, and 2 x 12 GB cards', { memTier: '24' }, ['m24', 'm16_5', 'm2x12']],
      ['32: 24.5 GB', { memTier: '32' }, ['m24_5']],
      ['48: the 48 GB card of every other run', { memTier: '48' }, allBut(...OWN_HARDWARE)],
      ['80: the sum over heterogeneous gpus slots (24 + 2 x 24)', { memTier: '80' }, ['mhet']],
      ['96: unified memory', { memTier: '96' }, ['mstrix']],
      ['128: unified memory', { memTier: '128' }, ['mmac', 'v2']],
      ['24 with os linux', { memTier: '24', os: 'linux' }, ['m24']],
    ]);

    it('puts memory above 128 GB in no tier', async () => {
      const seen: string[] = [];
      for (const tier of ['8', '12', '16', '24', '32', '48', '80', '96', '128']) seen.push(...(await boardLabels(ctx, seeder, { memTier: tier })));
      expect(seen).to.have.lengthOf(seeder.approved().length - 1);
      expect(seen).not.to.include('mcpu129');
    });
  });

  describe('hardware', () => {
    filterCases(ctx, seeder, [
      ['hwClass UNIFIED', { hwClass: 'UNIFIED' }, ['mmac', 'mstrix', 'v2']],
      ['hwClass CPU_ONLY', { hwClass: 'CPU_ONLY' }, ['mcpu129', 'mcpu8']],
      ['hwClass DISCRETE_GPU', { hwClass: 'DISCRETE_GPU' }, allBut('mmac', 'mstrix', 'v2', 'mcpu129', 'mcpu8')],
      ['hardwareName: one slot of a heterogeneous setup', { hardwareName: 'p40' }, ['mhet']],
      ['hardwareName: another slot, any case', { hardwareName: 'TESLA p4' }, ['mhet']],
      ['hardwareName: the first slot', { hardwareName: 'rtx 3090' }, ['mhet']],
      ['hardwareName: chip family', { hardwareName: 'm3' }, ['mmac', 'v2']],
      ['hardwareName: chip vendor', { hardwareName: 'Apple' }, ['mmac', 'v2']],
      ['hardwareName: chip family with a space', { hardwareName: 'ryzen ai' }, ['mstrix']],
      ['hardwareName: chip variant and family', { hardwareName: 'MAX' }, ['mmac', 'v2', 'mstrix']],
      ['hardwareName: chip vendor and CPU names', { hardwareName: 'amd' }, ['m16', 'mstrix', 'mcpu129']],
      ['hardwareName: the CPU of a GPU setup', { hardwareName: 'threadripper' }, ['m16']],
      ['hardwareName: a CPU-only setup', { hardwareName: 'i5-12400' }, ['mcpu8']],
      ['hardwareName: GPU name part', { hardwareName: 'odd card' }, ['m24_5', 'm16_5']],
      ['hardwareName: a GPU name, not the rejected run on the same card', { hardwareName: 'RTX 4090' }, ['m24']],
      ['hardwareName: % is a literal character', { hardwareName: '%' }, []],
      ['hardwareName: _ is a literal character', { hardwareName: '_' }, []],
      ['hardwareName with no match', { hardwareName: 'h100' }, []],
      ['os linux: "Ubuntu 24.04", "Arch Linux", "Debian 12"', { os: 'linux' }, ['m24', 'mhet', 'mcpu129']],
      ['os macos: "macOS 15"', { os: 'macos' }, ['mmac', 'v2']],
      ['os windows: "Windows 11"', { os: 'windows' }, ['mstrix']],
    ]);
  });

  describe('model', () => {
    filterCases(ctx, seeder, [
      ['paramSize 1: (0, 2], 2.0 B included', { paramSize: '1' }, ['p2']],
      ['paramSize 3: (2, 5], 2.01 B and 5 B', { paramSize: '3' }, ['p2_01', 'p5']],
      ['paramSize 7: (5, 10], 10 B and 7.24 B (the finetune has its base size)', { paramSize: '7' }, ['p10', 'llama', 'tune']],
      ['paramSize 13: (10, 20]', { paramSize: '13' }, ['p20']],
      ['paramSize 30: (20, 50], 50 B, 46.7 B, 30.5 B', { paramSize: '30' }, ['p50', 'mix', 'sparse', 'qmoe']],
      ['paramSize 70: (50, 90]', { paramSize: '70' }, ['p90']],
      ['paramSize 110: above 90', { paramSize: '110' }, ['p90_5']],
      ['hfId: exactly that model, not its finetune', { hfId: fakeHubModels.dense }, ['llama']],
      ['hfId: case-insensitive', { hfId: 'FAKEORG/dense-7b' }, ['llama']],
      ['hfId of the finetune', { hfId: fakeHubModels.finetune }, ['tune']],
      ['hfId is not a prefix match', { hfId: 'handorg/Params-2B' }, ['p2']],
      ['modelFamily, any case', { modelFamily: 'LLAMA' }, ['llama', 'tune']],
      ['modelFamily substring', { modelFamily: 'tral' }, ['mix']],
      ['modelFamily qwen3', { modelFamily: 'qwen3' }, ['qmoe']],
      ['modelFamily qwen: qwen2 and qwen3_moe', { modelFamily: 'Qwen' }, (s) => [...PLAIN_MODEL_RUNS(s), 'qmoe']],
      ['modelFamily custom', { modelFamily: 'custom' }, ['sparse']],
      ['modelFamily: % is literal', { modelFamily: '%' }, []],
      ['modelFamily: _ is literal', { modelFamily: '_' }, ['qmoe']],
      ['isMoE=true: by architecture, by config, and catalogued', { isMoE: 'true' }, ['mix', 'sparse', 'qmoe']],
      ['isMoE=false', { isMoE: 'false' }, allBut('mix', 'sparse', 'qmoe')],
      ['isMoE and paramSize together', { isMoE: 'false', paramSize: '30' }, ['p50']],
    ]);

    it('puts a model without params in no paramSize bucket', async () => {
      const seen: string[] = [];
      for (const size of ['1', '3', '7', '13', '30', '70', '110']) seen.push(...(await boardLabels(ctx, seeder, { paramSize: size })));
      expect(seen.sort()).to.deep.equal([...PARAM_MODELS.map(([l]) => l), 'llama', 'tune', 'mix', 'sparse', 'qmoe'].sort());
    });
  });

  describe('run settings', () => {
    filterCases(ctx, seeder, [
      ['batchSize 1 (the default)', { batchSize: '1' }, allBut('b2', 'b7', 'b8', 'b16')],
      ['batchSize 2, exactly', { batchSize: '2' }, ['b2']],
      ['batchSize 3: nothing', { batchSize: '3' }, []],
      ['batchSize 7, exactly', { batchSize: '7' }, ['b7']],
      ['batchSize 8: 8 and more', { batchSize: '8' }, ['b8', 'b16']],
      ['contextLen 2048: (0, 2048]', { contextLen: '2048' }, ['c1', 'c2048']],
      ['contextLen 4096: 2049 and 4096', { contextLen: '4096' }, ['c2049', 'c4096']],
      ['contextLen 8192', { contextLen: '8192' }, allBut(...CONTEXT.map(([l]) => l))],
      ['contextLen 65536: nothing', { contextLen: '65536' }, []],
      ['contextLen 131072: and everything above', { contextLen: '131072' }, ['c131072', 'c131073', 'c1m']],
      ['engineName vllm', { engineName: 'vllm' }, ['vllm']],
      ['engineName ember (revision 3 only)', { engineName: 'ember' }, ['ember']],
      ['engineName llama.cpp', { engineName: 'llama.cpp' }, allBut('vllm', 'ember')],
      ['quantization, exactly', { quantization: 'Q8_0' }, ['q8', 'cuda2']],
      ['quantization, case-sensitive', { quantization: 'q8_0' }, []],
      ['quantization Q4_K_M', { quantization: 'Q4_K_M' }, allBut('q8', 'cuda2')],
      ['backend, exactly', { backend: 'cuda' }, ['vllm', 'cuda2']],
      ['backend, case-sensitive', { backend: 'CUDA' }, []],
      ['backend rocm', { backend: 'rocm' }, ['rocm']],
      ['backend and quantization together', { backend: 'cuda', quantization: 'Q8_0' }, ['cuda2']],
    ]);
  });

  describe('submitter', () => {
    filterCases(ctx, seeder, [
      ['verified=true, set by an admin after the runs', { verified: 'true' }, ['v1', 'v2']],
      ['verified=false', { verified: 'false' }, allBut('v1', 'v2')],
      ['verified and hwClass together', { verified: 'true', hwClass: 'UNIFIED' }, ['v2']],
    ]);

    it('shows the submitter as verified on the rows', async () => {
      const { rows } = await page(ctx, { verified: 'true' });
      for (const row of rows) expect(row.user).to.include({ username: 'vera', verified: true });
    });
  });

  it('since: the 30-day and 7-day windows at their edges', async () => {
    const all = seeder.ranked(seeder.approved());
    const first = seeder.order[0]!;
    const start = seeder.createdAt(first);
    const at = (ms: number, since: string) => atTime(ctx, ms, () => boardLabels(ctx, seeder, { since }));
    expect(await at(start + 7 * DAY - 1, '7d')).to.deep.equal(all);
    expect(await at(start + 7 * DAY + 1, '7d')).to.deep.equal(all.filter((l) => l !== first));
    expect(await at(start + 30 * DAY + 1, '30d')).to.deep.equal(all.filter((l) => l !== first));
    expect(await at(start + 30 * DAY + 1, '7d')).to.deep.equal([]);
  });
});

// ---------------------------------------------------------------------------
// Revision 3: sorts, bestPer=hardware and exports
// ---------------------------------------------------------------------------

describe('GET /api/leaderboard, revision 3: sorts, bestPer and exports', () => {
  const ctx = useTestApp({ API_REVISION: '3' }, { fakeHub: true });
  const seeder = createSeeder(ctx, revision(3));

  const HA = { hwClass: 'DISCRETE_GPU', gpuName: 'Card A', vramGb: 24 };
  const HB = { hwClass: 'DISCRETE_GPU', gpuName: 'Card B', vramGb: 24, powerWatts: 300 };
  const HC = { hwClass: 'UNIFIED', chipVendor: 'Apple', chipFamily: 'M4', chipVariant: 'Max', unifiedMemoryGb: 64 };
  const HD = { hwClass: 'CPU_ONLY', cpu: '=SUM(A1)', ramGb: 64 };
  const cost = (price: number, currency: string) => ({ component: 'NVIDIA GeForce RTX 4090', condition: 'NEW', yearPurchased: 2024, price, currency });

  before(async () => {
    const user = await seeder.signUp('sorter');
    await seeder.seedRun('r1', user, { hardware: HA, tokSOut: 100, tokSPrefill: 1000, ttftMs: 300, gpuPowerWatts: [200, 50], hardwareCost: [cost(1000, 'USD')] });
    await seeder.seedRun('r2', user, { hardware: HA, tokSOut: 80, ttftMs: 100 });
    await seeder.seedRun('r3', user, { hardware: HB, tokSOut: 90, tokSPrefill: 2000, hardwareCost: [cost(500, 'EUR')] });
    // Measured watts (100) win over the declared 300.
    await seeder.seedRun('r4', user, { hardware: HB, tokSOut: 120, ttftMs: 250, gpuPowerWatts: [100] });
    await seeder.seedRun('r5', user, { hardware: HC, tokSOut: 60, ttftMs: 50, hardwareCost: [cost(200, 'USD'), cost(100, 'GBP')] });
    await seeder.seedRun('r6', user, {
      hardware: HD,
      tokSOut: 10,
      quantization: '+Q4',
      engineVersion: '-1.0',
      backend: '@cpu',
      notes: '=HYPERLINK("http://example.com")',
    });
    await seeder.seedRun('r7', user, { hardware: HC, tokSOut: 100 });
    // Best on every sort and on Card A: hidden once rejected.
    await seeder.seedRun('rej', user, { hardware: HA, tokSOut: 500, tokSPrefill: 99_999, ttftMs: 1, gpuPowerWatts: [1], hardwareCost: [cost(1, 'USD')] });
    await seeder.reject('rej');
  });

  const labels = async (query: Query) => boardLabels(ctx, seeder, query);

  describe('sort', () => {
    const sorts: [string, Query, string[]][] = [
      ['tokSOut, the default: highest first, the tie to the earlier run', {}, ['r4', 'r1', 'r7', 'r3', 'r2', 'r5', 'r6']],
      ['sort=tokSOut', { sort: 'tokSOut' }, ['r4', 'r1', 'r7', 'r3', 'r2', 'r5', 'r6']],
      ['tokSPrefill: highest first, runs without it last by createdAt', { sort: 'tokSPrefill' }, ['r3', 'r1', 'r2', 'r4', 'r5', 'r6', 'r7']],
      ['ttftMs: lowest first, runs without it last', { sort: 'ttftMs' }, ['r5', 'r2', 'r4', 'r1', 'r3', 'r6', 'r7']],
      ['tokPerWatt: measured GPU watts, else the declared powerWatts; none last', { sort: 'tokPerWatt' }, ['r4', 'r1', 'r3', 'r2', 'r5', 'r6', 'r7']],
      ['tokPerDollar: prices in USD, summed; none last', { sort: 'tokPerDollar' }, ['r5', 'r3', 'r1', 'r2', 'r4', 'r6', 'r7']],
      ['a sort with a filter', { sort: 'ttftMs', hwClass: 'DISCRETE_GPU' }, ['r2', 'r4', 'r1', 'r3']],
    ];
    for (const [name, query, expected] of sorts) {
      it(name, async () => {
        expect(await labels(query)).to.deep.equal(expected);
      });
    }

    it('pages a sort with ranks that continue', async () => {
      const body = await page(ctx, { sort: 'ttftMs', limit: '3', offset: '3' });
      expect(body).to.include({ total: 7, limit: 3, offset: 3 });
      expect(body.rows.map((row) => [seeder.labelOf(row), row.rank])).to.deep.equal([['r1', 4], ['r3', 5], ['r6', 6]]);
    });

    it('reports tokPerWatt and tokPerDollar on each row (null without the input)', async () => {
      const { rows } = await page(ctx);
      const byLabel = new Map(rows.map((row) => [seeder.labelOf(row), row]));
      expect(byLabel.get('r1')!.tokPerWatt).to.be.closeTo(100 / 250, 1e-9);
      expect(byLabel.get('r3')!.tokPerWatt).to.be.closeTo(90 / 300, 1e-9);
      expect(byLabel.get('r4')!.tokPerWatt).to.be.closeTo(120 / 100, 1e-9);
      expect(byLabel.get('r4')!.totalPowerWatts).to.equal(100);
      for (const label of ['r2', 'r5', 'r6', 'r7']) expect(byLabel.get(label)!.tokPerWatt, label).to.equal(null);
      expect(byLabel.get('r1')!.tokPerDollar).to.be.closeTo(100 / 1000, 1e-9);
      expect(byLabel.get('r3')!.tokPerDollar).to.be.closeTo(90 / (500 * usdPerUnit.EUR!), 1e-9);
      expect(byLabel.get('r5')!.tokPerDollar).to.be.closeTo(60 / (200 + 100 * usdPerUnit.GBP!), 1e-9);
      for (const label of ['r2', 'r4', 'r6', 'r7']) expect(byLabel.get(label)!.tokPerDollar, label).to.equal(null);
    });
  });

  describe('bestPer=hardware', () => {
    const cases: [string, Query, string[]][] = [
      ['each profile once, its fastest run (Card A: r1, not the rejected run)', { bestPer: 'hardware' }, ['r4', 'r1', 'r7', 'r6']],
      ['best by ttftMs, a profile without ttftMs last', { bestPer: 'hardware', sort: 'ttftMs' }, ['r5', 'r2', 'r4', 'r6']],
      ['best by tokSPrefill; a profile with none keeps its earliest run', { bestPer: 'hardware', sort: 'tokSPrefill' }, ['r3', 'r1', 'r5', 'r6']],
      ['best by tokPerWatt', { bestPer: 'hardware', sort: 'tokPerWatt' }, ['r4', 'r1', 'r5', 'r6']],
      ['best by tokPerDollar', { bestPer: 'hardware', sort: 'tokPerDollar' }, ['r5', 'r3', 'r1', 'r6']],
      ['with a filter: only matching profiles', { bestPer: 'hardware', hwClass: 'DISCRETE_GPU' }, ['r4', 'r1']],
      ['with a sort and a filter', { bestPer: 'hardware', sort: 'ttftMs', hwClass: 'UNIFIED' }, ['r5']],
    ];
    for (const [name, query, expected] of cases) {
      it(name, async () => {
        expect(await labels(query)).to.deep.equal(expected);
      });
    }

    it('filters before picking the best: a profile whose fastest run is filtered out shows its next best', async () => {
      // Card B's fastest run (r4) no longer matches, so its next best (r3) stands for it; r6 ('+Q4') drops out.
      await ctx.db('speed_test_runs').where({ id: seeder.runs.get('r4')!.id }).update({ quantization: 'Q8_0' });
      try {
        expect(await labels({ bestPer: 'hardware', quantization: 'Q4_K_M' })).to.deep.equal(['r1', 'r7', 'r3']);
      } finally {
        await ctx.db('speed_test_runs').where({ id: seeder.runs.get('r4')!.id }).update({ quantization: 'Q4_K_M' });
      }
    });

    it('counts profiles in total and ranks on from the offset', async () => {
      const body = await page(ctx, { bestPer: 'hardware', limit: '2', offset: '1' });
      expect(body).to.include({ total: 4, limit: 2, offset: 1 });
      expect(body.rows.map((row) => [seeder.labelOf(row), row.rank])).to.deep.equal([['r1', 2], ['r7', 3]]);
    });

    it('answers rows that are whole runs', async () => {
      const { rows } = await page(ctx, { bestPer: 'hardware' });
      for (const row of rows) {
        const { rank, ...run } = row;
        expect(run).to.deep.equal(seeder.runs.get(seeder.labelOf(row)));
      }
    });
  });

  describe('exports', () => {
    it('CSV: every matching row in rank order, ignoring limit and offset', async () => {
      const { res, text } = await download(ctx, { format: 'csv', limit: '2', offset: '3' });
      expect(res.status).to.equal(200);
      expect(res.headers['content-disposition']).to.match(/^attachment; filename="leaderboard-\d{4}-\d{2}-\d{2}\.csv"$/);
      const { header, records } = csvRecords(text);
      expect(header[0]).to.equal('rank');
      expect(header).to.include.members(CSV_COLUMNS);
      expect(records.map((r) => seeder.labelOf({ id: r.id }))).to.deep.equal(['r4', 'r1', 'r7', 'r3', 'r2', 'r5', 'r6']);
      expect(records.map((r) => r.rank)).to.deep.equal(['1', '2', '3', '4', '5', '6', '7']);
      const r1 = records[1]!;
      expect(r1).to.include({ hfId: fakeHubModels.dense, hwClass: 'DISCRETE_GPU', gpuName: 'Card A', engineName: 'llama.cpp', quantization: 'Q4_K_M', tokSOut: '100', ttftMs: '300', username: 'sorter' });
      expect(Number(r1.tokPerWatt)).to.be.closeTo(0.4, 1e-9);
      expect(r1.createdAt).to.equal(seeder.runs.get('r1')!.createdAt);
    });

    it('CSV: follows sort, bestPer and filters', async () => {
      const sorted = csvRecords((await download(ctx, { format: 'csv', sort: 'ttftMs' })).text).records;
      expect(sorted.map((r) => seeder.labelOf({ id: r.id }))).to.deep.equal(['r5', 'r2', 'r4', 'r1', 'r3', 'r6', 'r7']);
      const best = csvRecords((await download(ctx, { format: 'csv', bestPer: 'hardware', sort: 'ttftMs' })).text).records;
      expect(best.map((r) => [seeder.labelOf({ id: r.id }), r.rank])).to.deep.equal([['r5', '1'], ['r2', '2'], ['r4', '3'], ['r6', '4']]);
      const unified = csvRecords((await download(ctx, { format: 'csv', hwClass: 'UNIFIED' })).text).records;
      expect(unified.map((r) => seeder.labelOf({ id: r.id }))).to.deep.equal(['r7', 'r5']);
    });

    it('CSV: text cells that start with = + - @ get a leading apostrophe', async () => {
      const { records } = csvRecords((await download(ctx, { format: 'csv', hwClass: 'CPU_ONLY' })).text);
      expect(records).to.have.lengthOf(1);
      const [r6] = records;
      expect(r6).to.include({ cpu: "'=SUM(A1)", quantization: "'+Q4", engineVersion: "'-1.0", backend: "'@cpu", tokSOut: '10' });
      expect(r6!.hardware!.startsWith("'=SUM(A1)")).to.equal(true);
      // Numbers are not text: nothing to defuse.
      for (const [column, value] of Object.entries(r6!)) {
        if (/^[=+\-@]/.test(value)) expect.fail(`${column} starts with a formula character: ${value}`);
      }
    });

    it('CSV: only the header line when nothing matches', async () => {
      const { res, text } = await download(ctx, { format: 'csv', hfId: 'nobody/none' });
      expect(res.status).to.equal(200);
      expect(res.headers['content-type']).to.equal('text/csv; charset=utf-8');
      const rows = parseCsv(text);
      expect(rows).to.have.lengthOf(1);
      expect(rows[0]![0]).to.equal('rank');
    });

    it('JSON Lines: one run per line with its rank, equal to the JSON rows, text as submitted', async () => {
      const { res, text } = await download(ctx, { format: 'jsonl', limit: '1' });
      expect(res.status).to.equal(200);
      expect(res.headers['content-type']).to.equal('application/x-ndjson; charset=utf-8');
      expect(res.headers['content-disposition']).to.match(/^attachment; filename="leaderboard-\d{4}-\d{2}-\d{2}\.jsonl"$/);
      expect(text.endsWith('\n')).to.equal(true);
      const lines = text.trimEnd().split('\n').map((line) => JSON.parse(line) as Row);
      expect(lines.map((line) => line.rank)).to.deep.equal([1, 2, 3, 4, 5, 6, 7]);
      const { rows } = await page(ctx);
      expect(lines).to.deep.equal(rows);
      const r6 = lines.find((line) => seeder.labelOf(line) === 'r6')!;
      expect(r6.notes).to.equal('=HYPERLINK("http://example.com")');
      expect((r6.hardware as Body).cpu).to.equal('=SUM(A1)');
    });

    it('JSON Lines: follows bestPer and sort', async () => {
      const { text } = await download(ctx, { format: 'jsonl', bestPer: 'hardware', sort: 'tokPerWatt' });
      const lines = text.trimEnd().split('\n').map((line) => JSON.parse(line) as Row);
      expect(lines.map((line) => [seeder.labelOf(line), line.rank])).to.deep.equal([['r4', 1], ['r1', 2], ['r5', 3], ['r6', 4]]);
    });
  });
});
