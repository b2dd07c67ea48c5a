/**
 * Model search from memory (issue 37): while the read index listens, `GET /api/models/search`
 * answers from a copy of the catalogue instead of a query per keystroke. It must answer
 * exactly what the SQL path answers, and follow the catalogue: a new model or a run count
 * changed by an approval is in the writer's next search and everyone else's within the
 * notify delay.
 */
import { expect } from 'chai';
import request from 'supertest';
import type { Express } from 'express';
import { useTestApp } from '../helpers/app.ts';
import { fakeHubModels } from '../helpers/fake-hub.ts';
import { validSubmission } from '../helpers/fixtures.ts';
import { account, submitRun } from '../helpers/moderation.ts';
import { waitFor } from '../helpers/read-index.ts';
// The benchmark's deterministic generator (mulberry32), so a failure names the query that differed.
import { prng } from '../bench/seed.ts';

/** Ids, names and families with what makes search rules differ: case, separators, LIKE's wildcards, non-ASCII letters. */
const ORGS = ['meta-llama', 'Qwen', 'mistralai', 'unsloth', 'TheBloke', 'ÄÖÜ-Labs', 'x_y'];
const NAMES = [
  'Llama-3.1-8B-Instruct',
  'Qwen3-30B-A3B',
  'Mistral_Small 24B',
  'Phi-4%mini',
  'ΜΟΝΤΈΛΟ-Ελληνικά',
  'gemma-3-4b-it-GGUF',
  'Qwen3',
];
const FAMILIES = ['llama', 'qwen3_moe', 'qwen3moe', 'mistral', null, 'Phi3', 'gemma3'];

const ready = (app: Express) =>
  waitFor(async () => (await request(app).get('/healthz').expect(200)).body.readIndex.state === 'ready', 15_000, 'the read index built');

describe('model search from memory', () => {
  const ctx = useTestApp({ API_REVISION: '3' }, { fakeHub: true });
  let sqlApp: Express;

  before(async () => {
    sqlApp = ctx.appWith({ READ_INDEX: 'off' });
    const rng = prng(37);
    const pick = <T>(items: readonly T[]) => items[Math.floor(rng() * items.length)]!;
    const rows = new Map<string, Record<string, unknown>>();
    while (rows.size < 120) {
      const name = `${pick(NAMES)}${rng() < 0.5 ? '' : `-v${Math.floor(rng() * 4)}`}`;
      const hfId = `${pick(ORGS)}/${name}`;
      // Run counts with many ties, so the id decides the order within a group.
      rows.set(hfId, {
        hf_id: hfId,
        display_name: rng() < 0.8 ? name : name.replace(/-/g, ' '),
        family: pick(FAMILIES),
        params: 7,
        benchmark_count: Math.floor(rng() * 4),
      });
    }
    await ctx.db('models').insert([...rows.values()]);
    await ready(ctx.app);
  });

  it('answers every query exactly as the SQL path does', async () => {
    const rng = prng(11);
    const models: { hf_id: string; display_name: string; family: string | null }[] = await ctx
      .db('models')
      .select('hf_id', 'display_name', 'family');
    const queries = new Set<string>([
      '-',
      '%',
      '_',
      'qwen3moe',
      'qwen3-moe',
      'QWEN3 30b',
      'ελληνικά',
      'äöü',
      'llama 3.1 8b',
      'zzz-no-such',
    ]);
    while (queries.size < 160) {
      const source = models[Math.floor(rng() * models.length)]!;
      const text = [source.hf_id, source.display_name, source.family ?? 'x'][Math.floor(rng() * 3)]!;
      const from = Math.floor(rng() * text.length);
      const piece = text.slice(from, from + 1 + Math.floor(rng() * 12));
      // Whole ids (exact matches), case changes, and two words in either order.
      const choice = rng();
      queries.add(
        choice < 0.15
          ? source.hf_id.toLowerCase()
          : choice < 0.3
            ? piece.toUpperCase()
            : choice < 0.45
              ? `${piece} ${text.slice(0, 3)}`
              : piece,
      );
    }
    let compared = 0;
    for (const q of queries) {
      if (!q.trim()) continue;
      for (const limit of ['3', '25']) {
        const [memory, sql] = await Promise.all([
          request(ctx.app).get('/api/models/search').query({ q, limit }).expect(200),
          request(sqlApp).get('/api/models/search').query({ q, limit }).expect(200),
        ]);
        expect(memory.body, `q=${JSON.stringify(q)} limit=${limit}`).to.deep.equal(sql.body);
        compared += 1;
      }
    }
    expect(compared).to.be.greaterThan(300);
  });

  it('sends no query to the database while nothing changes', async () => {
    await request(ctx.app).get('/api/models/search').query({ q: 'qwen' }).expect(200);
    let queries = 0;
    const count = () => (queries += 1);
    ctx.db.on('query', count);
    try {
      for (const q of ['qwen', 'llama 3.1', 'mistral', 'gguf']) await request(ctx.app).get('/api/models/search').query({ q }).expect(200);
    } finally {
      ctx.db.off('query', count);
    }
    expect(queries).to.equal(0);
    // The SQL path (no read index) queries each time: the count above can see a query.
    ctx.db.on('query', count);
    try {
      await request(sqlApp).get('/api/models/search').query({ q: 'qwen' }).expect(200);
    } finally {
      ctx.db.off('query', count);
    }
    expect(queries).to.be.greaterThan(0);
  });

  it("shows a new model and its run count in the writer's next search", async () => {
    const hfId = fakeHubModels.moeByArchitecture;
    const search = async () => (await request(ctx.app).get('/api/models/search').query({ q: hfId }).expect(200)).body;
    expect(await search()).to.deep.equal([]);
    // Submitting catalogues the model from the hub and, approved at once, counts the run.
    const submitter = await account(ctx);
    const run = await submitRun(ctx, submitter, { hfId });
    expect(run.status).to.equal('APPROVED');
    const added = await search();
    expect(added.map((m: { hfId: string }) => m.hfId)).to.deep.equal([hfId]);
    expect(added[0].benchmarkCount).to.equal(1);
    await submitRun(ctx, submitter, { hfId });
    expect((await search())[0].benchmarkCount).to.equal(2);
  });

  it('follows writes of another instance within the notify delay', async () => {
    const search = async (q: string) => (await request(ctx.app).get('/api/models/search').query({ q }).expect(200)).body;
    const other = ctx.appWith({});
    await ready(other);
    // A model catalogued elsewhere (the catalogue notice).
    await ctx
      .db('models')
      .insert({ hf_id: 'elsewhere/Brand-New-Model', display_name: 'Brand New Model', family: 'llama', params: 3, benchmark_count: 0 });
    await waitFor(async () => (await search('brand new')).length === 1, 5000, 'the new model found');
    // A run submitted through the other instance: its count arrives with the run's notice.
    const hfId = fakeHubModels.moeByArchitecture;
    const counted = (await search(hfId))[0].benchmarkCount as number;
    const submitter = await account(ctx);
    const res = await request(other)
      .post('/api/speed-tests')
      .set('Authorization', `Bearer ${submitter.key}`)
      .send(validSubmission({ hfId, hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'RTX 4090', vramGb: 24 } }))
      .expect(201);
    expect(res.body.status ?? res.body.benchmark?.status).to.equal('APPROVED');
    await waitFor(async () => (await search(hfId))[0].benchmarkCount === counted + 1, 5000, 'the run count followed');
  });
});
