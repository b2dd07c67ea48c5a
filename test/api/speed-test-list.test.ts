import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import request from 'supertest';
import { createKey, signedUpAgent, useTestApp, type TestContext } from '../helpers/app.ts';
import { fakeHubModels } from '../helpers/fake-hub.ts';
import { validSubmission } from '../helpers/fixtures.ts';

// Expected values come from the spec ("Speed-test results", "Limits", "Versioning").
interface Revision {
  revision: 1 | 2 | 3;
  path: '/api/benchmarks' | '/api/speed-tests';
  /** date, dateFrom, dateTo, userId and username exist from revision 2 on. */
  userAndDateFilters: boolean;
}

const REVISIONS: Revision[] = [
  { revision: 1, path: '/api/benchmarks', userAndDateFilters: false },
  { revision: 2, path: '/api/benchmarks', userAndDateFilters: true },
  { revision: 3, path: '/api/speed-tests', userAndDateFilters: true },
];

const USER_AND_DATE_PARAMS = ['date', 'dateFrom', 'dateTo', 'userId', 'username'] as const;

type Body = Record<string, unknown>;
type Query = Record<string, string | string[]>;

// ---------------------------------------------------------------------------
// The seed: one table of runs, submitted through the API in time order
// ---------------------------------------------------------------------------

const USERS = ['alice', 'Bob_Mixed', 'carol', 'dave', 'erin'] as const;
type UserName = (typeof USERS)[number];
/** Marked verified before any run is submitted. */
const VERIFIED: UserName = 'alice';

/** Catalogued by hand: the hub knows neither; their bases are named by hf id only. */
const MANUAL_MODELS = {
  /** A quant whose base is not catalogued anywhere. */
  orphanQuant: {
    hf_id: 'quantco/Orphan-3B-GGUF',
    display_name: 'Orphan-3B-GGUF',
    params: 3,
    base_hf_id: 'ghostorg/Orphan-3B',
    base_relation: 'quantized',
  },
  /** A quant of the finetune: a grandchild of the dense base. */
  chatAwq: {
    hf_id: 'quantco/Dense-7B-Chat-AWQ',
    display_name: 'Dense-7B-Chat-AWQ',
    params: 7.24,
    base_hf_id: fakeHubModels.finetune,
    base_relation: 'quantized',
  },
};

const HW = {
  rtx4090: { hwClass: 'DISCRETE_GPU', gpuName: 'RTX 4090', vramGb: 24 },
  rtx4090d: { hwClass: 'DISCRETE_GPU', gpuName: 'RTX 4090 D', vramGb: 24 },
  rtx3090x2: { hwClass: 'DISCRETE_GPU', gpuName: 'RTX 3090', gpuCount: 2, vramGb: 24 },
  m3Max: { hwClass: 'UNIFIED', chipVendor: 'Apple', chipFamily: 'M3', chipVariant: 'Max', unifiedMemoryGb: 128 },
  m4Pro: { hwClass: 'UNIFIED', chipVendor: 'Apple', chipFamily: 'M4', chipVariant: 'Pro', unifiedMemoryGb: 48 },
  ryzen: { hwClass: 'UNIFIED', chipVendor: 'AMD', chipFamily: 'Ryzen AI Max', chipVariant: '395', unifiedMemoryGb: 128 },
  epyc: { hwClass: 'CPU_ONLY', cpu: 'EPYC 9654', ramGb: 384 },
  xeon: { hwClass: 'CPU_ONLY', cpu: 'Xeon w9-3495X', ramGb: 512 },
} as const;

interface Seed {
  label: string;
  user: UserName;
  hfId: string;
  hardware: Body;
  flags?: Body;
  /** UTC creation time; seeds are in time order, at least one window apart per user. */
  at: string;
}

const SNIPPET = 'llama-server -m model.gguf';
const seed = (label: string, user: UserName, hfId: string, hardware: Body, at: string, flags?: Body): Seed => ({
  label,
  user,
  hfId,
  hardware,
  at,
  ...(flags ? { flags } : {}),
});

const SEEDS: Seed[] = [
  // 2026-03-01
  seed('a1', 'alice', fakeHubModels.dense, HW.rtx4090, '2026-03-01T10:00:00.000Z', {
    kvCacheDtype: 'q8_0',
    attentionBackend: 'flash_attn',
    gpuLayers: 99,
    tensorParallel: 1,
  }),
  seed('b1', 'Bob_Mixed', fakeHubModels.ggufQuant, HW.rtx3090x2, '2026-03-01T10:05:00.000Z', {
    kvCacheDtype: 'q4_0',
    gpuLayers: 40,
    tensorParallel: 2,
  }),
  seed('c1', 'carol', fakeHubModels.finetune, HW.m3Max, '2026-03-01T10:10:00.000Z', { kvCacheDtype: 'q8_0', attentionBackend: 'sdpa' }),
  seed('a2', 'alice', fakeHubModels.gated, HW.rtx4090d, '2026-03-01T10:15:00.000Z', {
    gpuLayers: 0,
    tensorParallel: 4,
    specModel: 'fakeorg/Draft-0.5B',
  }),
  seed('b2', 'Bob_Mixed', fakeHubModels.moeByArchitecture, HW.epyc, '2026-03-01T23:59:59.999Z'),
  // 2026-03-02 (c2 one millisecond after b2, on the next UTC day)
  seed('c2', 'carol', fakeHubModels.dense, HW.m4Pro, '2026-03-02T00:00:00.000Z', { mtpDraftLayers: 1 }),
  seed('a3', 'alice', MANUAL_MODELS.orphanQuant.hf_id, HW.rtx4090, '2026-03-02T12:00:00.000Z', {
    kvCacheDtype: 'q8_0',
    attentionBackend: 'flash_attn',
    gpuLayers: 80,
    tensorParallel: 2,
  }),
  seed('d1', 'dave', fakeHubModels.dense, HW.rtx4090, '2026-03-02T12:05:00.000Z', { kvCacheDtype: 'q8_0' }),
  seed('b3', 'Bob_Mixed', MANUAL_MODELS.chatAwq.hf_id, HW.ryzen, '2026-03-02T12:10:00.000Z', { specDecoding: true, mtpEnabled: true }),
  // 2026-03-03
  seed('c3', 'carol', fakeHubModels.gated, HW.epyc, '2026-03-03T09:00:00.000Z', { tensorParallel: 8, attentionBackend: 'flash_attn' }),
  seed('a4', 'alice', fakeHubModels.finetune, HW.rtx3090x2, '2026-03-03T09:05:00.000Z', { gpuLayers: 100, kvCacheDtype: 'fp8' }),
  seed('b4', 'Bob_Mixed', fakeHubModels.dense, HW.rtx4090d, '2026-03-03T09:10:00.000Z'),
  // 2026-03-04: filler runs, so that the unfiltered list is longer than a default page
  ...Array.from({ length: 11 }, (_, i) =>
    seed(`e${i + 1}`, 'erin', fakeHubModels.moeByConfig, HW.xeon, new Date(Date.UTC(2026, 2, 4, 10, 5 * i)).toISOString()),
  ),
];
/** Set to REJECTED in the database after seeding. */
const REJECTED = 'd1';

const FILLERS = SEEDS.filter((s) => s.user === 'erin').map((s) => s.label);
const SEED_ORDER = SEEDS.map((s) => s.label);
/** Labels as the list must return them: newest first. */
const newestFirst = (labels: string[]) => [...labels].sort((a, b) => SEED_ORDER.indexOf(b) - SEED_ORDER.indexOf(a));
const APPROVED = newestFirst(SEED_ORDER.filter((label) => label !== REJECTED));
const labelsOf = (user: UserName) => SEEDS.filter((s) => s.user === user && s.label !== REJECTED).map((s) => s.label);

function submission(s: Seed): Body {
  return validSubmission({
    hfId: s.hfId,
    hardware: s.hardware,
    tokSOut: 30 + SEED_ORDER.indexOf(s.label),
    ttftMs: 200,
    ...(s.flags ? { engineFlags: { commandSnippet: SNIPPET, ...s.flags } } : {}),
  });
}

interface Seeded {
  /** The 201 body of each seed, by label. */
  runs: Map<string, Body>;
  /** id of each run -> label. */
  labelById: Map<string, string>;
  userIds: Record<UserName, string>;
}

async function seedRuns(ctx: TestContext, path: string): Promise<Seeded> {
  const keys = {} as Record<UserName, string>;
  const userIds = {} as Record<UserName, string>;
  for (const username of USERS) {
    const { agent, csrf } = await signedUpAgent(ctx.app, username);
    keys[username] = (await createKey(agent, csrf)).key;
    userIds[username] = (await ctx.db('users').where({ username }).first('id')).id;
  }
  await ctx.db('users').where({ id: userIds[VERIFIED] }).update({ is_verified: true });
  await ctx.db('models').insert(Object.values(MANUAL_MODELS));

  const runs = new Map<string, Body>();
  const labelById = new Map<string, string>();
  for (const s of SEEDS) {
    ctx.clock.set(s.at);
    const res = await request(ctx.app).post(path).set('Authorization', `Bearer ${keys[s.user]}`).send(submission(s));
    if (res.status !== 201) throw new Error(`seeding ${s.label} failed with ${res.status}: ${JSON.stringify(res.body)}`);
    runs.set(s.label, res.body);
    labelById.set(res.body.id, s.label);
  }
  await ctx
    .db('speed_test_runs')
    .where({ id: runs.get(REJECTED)!.id })
    .update({ status: 'REJECTED' });
  return { runs, labelById, userIds };
}

/** Expects the contract's 400 body with errors on exactly `fields`. */
function expectValidationFailed(res: request.Response, fields: string[]) {
  expect(res.status, JSON.stringify(res.body)).to.equal(400);
  expect(res.body.error).to.equal('Validation failed');
  expect(res.body.details.fieldErrors).to.have.all.keys(...fields);
  for (const field of fields) expect(res.body.details.fieldErrors[field]).to.be.an('array').that.is.not.empty;
}

for (const rev of REVISIONS) {
  const { revision, path } = rev;

  describe(`GET ${path}, revision ${revision}`, () => {
    // strict: the seed rejects a run straight in the database, and the first read must not list it.
    const ctx = useTestApp({ API_REVISION: String(revision), READ_INDEX_FRESHNESS: 'strict' }, { fakeHub: true });
    let seeded: Seeded;

    before(async () => {
      seeded = await seedRuns(ctx, path);
    });

    const list = (query: Query = {}) => request(ctx.app).get(path).query(query);
    /** Lists with `query` and returns the labels of the rows, after checking total. */
    async function labelsFor(query: Query): Promise<string[]> {
      const res = await list({ limit: '100', ...query });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      const labels = res.body.benchmarks.map((run: Body) => seeded.labelById.get(run.id as string) ?? `unknown ${String(run.id)}`);
      expect(res.body.total, 'total').to.equal(labels.length);
      return labels;
    }

    describe('the page', () => {
      it('answers { benchmarks, total, limit, offset }: the 20 newest approved runs by default', async () => {
        const res = await list().expect(200);
        // Sent as bytes: the type still names the charset, as it did for a text.
        expect(res.headers['content-type']).to.equal('application/json; charset=utf-8');
        expect(res.body).to.have.all.keys('benchmarks', 'total', 'limit', 'offset');
        expect(res.body).to.include({ total: APPROVED.length, limit: 20, offset: 0 });
        expect(APPROVED.length).to.be.greaterThan(20);
        expect(res.body.benchmarks.map((run: Body) => seeded.labelById.get(run.id as string))).to.deep.equal(APPROVED.slice(0, 20));
      });

      it('lists each run as the submission returned it, with model, hardware, engine, engineFlags, user and reactions', async () => {
        const res = await list({ limit: '100' }).expect(200);
        for (const run of res.body.benchmarks as Body[]) {
          const label = seeded.labelById.get(run.id as string)!;
          expect(run, label).to.deep.equal(seeded.runs.get(label));
          expect(run).to.include.keys('model', 'hardware', 'engine', 'engineFlags', 'user');
          expect(run.reactionCounts).to.deep.equal({});
          expect(run.myEmoji).to.equal(null);
          expect(run.user).to.have.all.keys('id', 'username', 'displayName', 'verified', 'demo');
          expect((run.user as { demo: boolean }).demo).to.equal(false);
        }
        const a1 = res.body.benchmarks.find((run: Body) => run.id === seeded.runs.get('a1')!.id);
        expect(a1.user).to.deep.equal({
          id: seeded.userIds.alice,
          username: 'alice',
          displayName: 'Display alice',
          verified: true,
          demo: false,
        });
        expect(a1.model).to.include({ hfId: fakeHubModels.dense, displayName: 'Dense-7B', family: 'llama', params: 7.24, isMoE: false });
        expect(a1.hardware).to.include({ hwClass: 'DISCRETE_GPU', gpuName: 'RTX 4090', vramGb: 24 });
        expect(a1.engine).to.include({ name: 'llama.cpp' });
        expect(a1.engineFlags).to.include({ commandSnippet: SNIPPET, kvCacheDtype: 'q8_0', gpuLayers: 99 });
      });

      it('pages with limit and offset over the same order, with the exact total on every page', async () => {
        const pages: string[] = [];
        for (let offset = 0; offset < APPROVED.length + 7; offset += 7) {
          const res = await list({ limit: '7', offset: String(offset) }).expect(200);
          expect(res.body).to.include({ total: APPROVED.length, limit: 7, offset });
          expect(res.body.benchmarks).to.have.lengthOf(Math.max(0, Math.min(7, APPROVED.length - offset)));
          pages.push(...res.body.benchmarks.map((run: Body) => seeded.labelById.get(run.id as string)!));
        }
        expect(pages).to.deep.equal(APPROVED);
      });

      it('accepts limit 1 and 100', async () => {
        expect((await list({ limit: '1' }).expect(200)).body.benchmarks).to.have.lengthOf(1);
        expect((await list({ limit: '100' }).expect(200)).body.benchmarks).to.have.lengthOf(APPROVED.length);
      });

      const badPaging: [string, Query, string][] = [
        ['limit 0', { limit: '0' }, 'limit'],
        ['limit 101', { limit: '101' }, 'limit'],
        ['limit abc', { limit: 'abc' }, 'limit'],
        ['limit 2.5', { limit: '2.5' }, 'limit'],
        ['a repeated limit', { limit: ['5', '6'] }, 'limit'],
        ['offset -1', { offset: '-1' }, 'offset'],
      ];
      for (const [label, query, field] of badPaging) {
        it(`answers 400 naming ${field} for ${label}`, async () => {
          expectValidationFailed(await list(query), [field]);
        });
      }

      it('answers 400 naming each unknown parameter', async () => {
        expectValidationFailed(await list({ sort: 'tokSOut', hfid: fakeHubModels.dense }), ['sort', 'hfid']);
      });

      it('never lists a REJECTED run, and GET of its id is 404', async () => {
        const rejected = seeded.runs.get(REJECTED)!;
        expect(await labelsFor({})).not.to.include(REJECTED);
        expect(await labelsFor({ hfId: fakeHubModels.dense })).not.to.include(REJECTED);
        const res = await request(ctx.app)
          .get(`${path}/${String(rejected.id)}`)
          .expect(404);
        expect(res.body.error).to.be.a('string');
      });
    });

    describe('filters', () => {
      // [name, query, expected labels (any order; the list must be newest first)]
      const cases: [string, Query, string[]][] = [
        [
          'hfId: the model, its quants and finetunes, and their quants',
          { hfId: fakeHubModels.dense },
          ['a1', 'b1', 'c1', 'c2', 'b3', 'a4', 'b4'],
        ],
        ['hfId, case-insensitively', { hfId: 'FAKEORG/dense-7b' }, ['a1', 'b1', 'c1', 'c2', 'b3', 'a4', 'b4']],
        ['hfId of a finetune: it and its quant, not its base', { hfId: fakeHubModels.finetune }, ['c1', 'b3', 'a4']],
        ['hfId of a quant: only itself', { hfId: fakeHubModels.ggufQuant }, ['b1']],
        ['hfId of an uncatalogued base: its quant, through the base id the hub named', { hfId: 'GhostOrg/orphan-3b' }, ['a3']],
        ['hfId of an unknown model: nothing', { hfId: 'fakeorg/Nothing-1B' }, []],
        ['hwClass DISCRETE_GPU', { hwClass: 'DISCRETE_GPU' }, ['a1', 'b1', 'a2', 'a3', 'a4', 'b4']],
        ['hwClass UNIFIED', { hwClass: 'UNIFIED' }, ['c1', 'c2', 'b3']],
        ['hwClass CPU_ONLY', { hwClass: 'CPU_ONLY' }, ['b2', 'c3', ...FILLERS]],
        ['gpuName, exactly (RTX 4090 is not RTX 4090 D)', { gpuName: 'RTX 4090' }, ['a1', 'a3']],
        ['gpuName RTX 3090', { gpuName: 'RTX 3090' }, ['b1', 'a4']],
        ['chipVendor', { chipVendor: 'Apple' }, ['c1', 'c2']],
        ['chipFamily', { chipFamily: 'M4' }, ['c2']],
        ['chipVariant', { chipVariant: 'Max' }, ['c1']],
        ['chipVendor and chipVariant together', { chipVendor: 'Apple', chipVariant: 'Pro' }, ['c2']],
        ['kvCacheDtype q8_0', { kvCacheDtype: 'q8_0' }, ['a1', 'c1', 'a3']],
        ['kvCacheDtype fp8', { kvCacheDtype: 'fp8' }, ['a4']],
        ['attentionBackend flash_attn', { attentionBackend: 'flash_attn' }, ['a1', 'a3', 'c3']],
        ['attentionBackend sdpa', { attentionBackend: 'sdpa' }, ['c1']],
        ['gpuLayersMin, inclusive', { gpuLayersMin: '40' }, ['a1', 'b1', 'a3', 'a4']],
        ['gpuLayersMin 81', { gpuLayersMin: '81' }, ['a1', 'a4']],
        ['tensorParallelMin 2', { tensorParallelMin: '2' }, ['b1', 'a2', 'a3', 'c3']],
        ['tensorParallelMin 4', { tensorParallelMin: '4' }, ['a2', 'c3']],
        ['specOnly=true: runs with speculative decoding (explicit, or implied by a draft model)', { specOnly: 'true' }, ['a2', 'b3']],
        ['mtpOnly=true: runs with MTP (explicit, or implied by draft layers)', { mtpOnly: 'true' }, ['c2', 'b3']],
        ['verified=true', { verified: 'true' }, labelsOf('alice')],
        ['verified=false', { verified: 'false' }, [...labelsOf('Bob_Mixed'), ...labelsOf('carol'), ...FILLERS]],
        ['two filters together', { hwClass: 'DISCRETE_GPU', kvCacheDtype: 'q8_0' }, ['a1', 'a3']],
      ];
      const userAndDateCases: [string, Query | ((s: Seeded) => Query), string[]][] = [
        ['date: one UTC day, up to its last millisecond', { date: '2026-03-01' }, ['a1', 'b1', 'c1', 'a2', 'b2']],
        ['date: from the first millisecond of the day', { date: '2026-03-02' }, ['c2', 'a3', 'b3']],
        ['date with no runs', { date: '2026-02-28' }, []],
        ['dateFrom, exclusive', (s) => ({ dateFrom: String(s.runs.get('b3')!.createdAt) }), ['c3', 'a4', 'b4', ...FILLERS]],
        ['dateTo, exclusive', (s) => ({ dateTo: String(s.runs.get('c2')!.createdAt) }), ['a1', 'b1', 'c1', 'a2', 'b2']],
        // 00:00Z and 09:05Z: c2 and a4 sit exactly on the bounds and are left out.
        [
          'dateFrom and dateTo with a UTC offset, both exclusive',
          { dateFrom: '2026-03-02T01:00:00+01:00', dateTo: '2026-03-03T10:05:00+01:00' },
          ['a3', 'b3', 'c3'],
        ],
        ['userId', (s) => ({ userId: s.userIds.Bob_Mixed }), labelsOf('Bob_Mixed')],
        ['username, case-insensitively', { username: 'bob_mixed' }, labelsOf('Bob_Mixed')],
        ['userId over username', (s) => ({ userId: s.userIds.carol, username: 'alice' }), labelsOf('carol')],
        ['username over verified', { username: 'carol', verified: 'true' }, labelsOf('carol')],
        ['userId over verified', (s) => ({ userId: s.userIds.carol, verified: 'true' }), labelsOf('carol')],
        ['username of a user whose only run is rejected', { username: 'dave' }, []],
        ['userId that matches no user', { userId: randomUUID() }, []],
      ];
      const all = [...cases, ...(rev.userAndDateFilters ? userAndDateCases : [])];

      for (const [name, query, expected] of all) {
        it(`filters by ${name}`, async () => {
          const labels = await labelsFor(typeof query === 'function' ? query(seeded) : query);
          expect(labels).to.deep.equal(newestFirst(expected));
        });
      }

      it('filters page like the full list: total counts every match', async () => {
        const res = await list({ hwClass: 'CPU_ONLY', limit: '2', offset: '1' }).expect(200);
        const expected = newestFirst(['b2', 'c3', ...FILLERS]);
        expect(res.body).to.include({ total: expected.length, limit: 2, offset: 1 });
        expect(res.body.benchmarks.map((run: Body) => seeded.labelById.get(run.id as string))).to.deep.equal(expected.slice(1, 3));
      });

      const badValues: [string, string][] = [
        ['hwClass', 'GPU'],
        ['verified', 'yes'],
        ['specOnly', 'yes'],
        ['mtpOnly', '1'],
        ['gpuLayersMin', '-1'],
        ['tensorParallelMin', 'two'],
        ['gpuName', ''],
        ...((rev.userAndDateFilters
          ? [
              ['date', '2026-13-01'],
              ['date', '2026-03-01T00:00:00Z'],
              ['dateFrom', 'yesterday'],
              ['dateTo', '2026-02-30T00:00:00Z'],
              ['userId', 'x'],
            ]
          : []) as [string, string][]),
      ];
      for (const [param, value] of badValues) {
        it(`answers 400 naming ${param} for ${param}=${JSON.stringify(value)}`, async () => {
          expectValidationFailed(await list({ [param]: value }), [param]);
        });
      }

      if (!rev.userAndDateFilters) {
        it('treats date, dateFrom, dateTo, userId and username as unknown parameters', async () => {
          for (const param of USER_AND_DATE_PARAMS) {
            const value = param === 'userId' ? seeded.userIds.alice : param === 'username' ? 'alice' : '2026-03-01';
            expectValidationFailed(await list({ [param]: value }), [param]);
          }
        });
      }
    });

    describe(`GET ${path}/{id}`, () => {
      it('answers one approved run as the submission returned it', async () => {
        for (const label of ['a1', 'c2', 'b3']) {
          const run = seeded.runs.get(label)!;
          const res = await request(ctx.app)
            .get(`${path}/${String(run.id)}`)
            .expect(200);
          expect(res.body).to.deep.equal(run);
        }
      });

      it('answers a JSON 404 for an unknown or malformed id', async () => {
        for (const id of [randomUUID(), 'not-a-uuid', '123', `${randomUUID()}x`]) {
          const res = await request(ctx.app)
            .get(`${path}/${encodeURIComponent(id)}`)
            .expect(404);
          expect(res.type).to.equal('application/json');
          expect(res.body.error).to.be.a('string');
        }
      });
    });
  });
}
