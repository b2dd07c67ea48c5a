import { expect } from 'chai';
import request from 'supertest';
import { createKey, signedUpAgent, useTestApp } from '../helpers/app.ts';
import { fakeHubModels } from '../helpers/fake-hub.ts';
import { validSubmission } from '../helpers/fixtures.ts';

/** Catalogue rows written by hand: no hub involved. */
async function catalogue(
  db: ReturnType<typeof useTestApp>['db'],
  rows: { hfId: string; family?: string; params?: number; base?: string; relation?: string; count?: number }[],
) {
  for (const row of rows) {
    const base = row.base ? await db('models').where({ hf_id: row.base }).first('id') : undefined;
    await db('models').insert({
      hf_id: row.hfId,
      display_name: row.hfId.split('/')[1],
      family: row.family ?? 'llama',
      params: row.params ?? 7,
      base_model_id: base?.id ?? null,
      base_hf_id: row.base ?? null,
      base_relation: row.relation ?? null,
      benchmark_count: row.count ?? 0,
    });
  }
}

for (const revision of [1, 2, 3] as const) {
  describe(`models API (revision ${revision})`, () => {
    const ctx = useTestApp({ API_REVISION: String(revision), READ_INDEX_FRESHNESS: 'strict' });

    before(async () => {
      await catalogue(ctx.db, [
        { hfId: 'meta/Llama-8B', count: 5 },
        { hfId: 'meta/Llama-8B-Instruct', base: 'meta/Llama-8B', relation: 'finetune', count: 9 },
        { hfId: 'quant/Llama-8B-Instruct-GGUF', base: 'meta/Llama-8B-Instruct', relation: 'quantized', count: 2 },
        { hfId: 'lora/Llama-8B-Adapter', base: 'meta/Llama-8B', relation: 'adapter' },
        { hfId: 'qwen/Qwen3-8B', family: 'qwen3', count: 7 },
        { hfId: 'mistral/Mixtral-8x7B', family: 'mixtral', params: 46.7, count: 1 },
        { hfId: 'other/llama-fan', family: 'gpt2', count: 0 },
      ]);
    });

    it('lists models most-benchmarked first with the catalogue fields and a total', async () => {
      const res = await request(ctx.app).get('/api/models').expect(200);
      expect(res.body).to.include({ total: 7, limit: revision === 1 ? 20 : 200, offset: 0 });
      expect(res.body.models.map((m: { hfId: string }) => m.hfId)).to.deep.equal([
        'meta/Llama-8B-Instruct',
        'qwen/Qwen3-8B',
        'meta/Llama-8B',
        'quant/Llama-8B-Instruct-GGUF',
        'mistral/Mixtral-8x7B',
        'lora/Llama-8B-Adapter',
        'other/llama-fan',
      ]);
      expect(res.body.models[0]).to.include({
        hfId: 'meta/Llama-8B-Instruct',
        displayName: 'Llama-8B-Instruct',
        family: 'llama',
        params: 7,
        benchmarkCount: 9,
        baseHfId: 'meta/Llama-8B',
        baseRelation: 'finetune',
      });
    });

    it('searches case-insensitively over id, display name and family, with paging', async () => {
      const res = await request(ctx.app).get('/api/models').query({ search: 'MIXTRAL' }).expect(200);
      expect(res.body.models.map((m: { hfId: string }) => m.hfId)).to.deep.equal(['mistral/Mixtral-8x7B']);
      const byFamily = await request(ctx.app).get('/api/models').query({ search: 'qwen3' }).expect(200);
      expect(byFamily.body.total).to.equal(1);
      const page = await request(ctx.app).get('/api/models').query({ search: 'llama', limit: '2', offset: '1' }).expect(200);
      expect(page.body).to.include({ total: 5, limit: 2, offset: 1 });
      expect(page.body.models).to.have.length(2);
      const none = await request(ctx.app).get('/api/models').query({ search: '%' }).expect(200);
      expect(none.body.total).to.equal(0);
    });

    it('nests finetunes, quants and adapters under their base in tree mode, each with its relation', async () => {
      const res = await request(ctx.app).get('/api/models').query({ tree: 'true' }).expect(200);
      expect(res.body.total).to.equal(4);
      const llama = res.body.models.find((m: { hfId: string }) => m.hfId === 'meta/Llama-8B');
      expect(llama.relation).to.equal(null);
      expect(llama.finetunes.map((c: { hfId: string; relation: string }) => [c.hfId, c.relation])).to.deep.equal([
        ['meta/Llama-8B-Instruct', 'finetune'],
        ['lora/Llama-8B-Adapter', 'adapter'],
      ]);
      expect(llama.finetunes[0].finetunes.map((c: { hfId: string; relation: string }) => [c.hfId, c.relation])).to.deep.equal([
        ['quant/Llama-8B-Instruct-GGUF', 'quantized'],
      ]);
      const searched = await request(ctx.app).get('/api/models').query({ tree: 'true', search: 'gguf' }).expect(200);
      expect(searched.body.models.map((m: { hfId: string }) => m.hfId)).to.deep.equal(['meta/Llama-8B']);
    });

    it('rejects bad parameters with the validation shape', async () => {
      for (const query of [{ limit: '0' }, { limit: '201' }, { offset: '-1' }, { tree: 'yes' }, { sort: 'x' }]) {
        const res = await request(ctx.app).get('/api/models').query(query).expect(400);
        expect(res.body.error).to.equal('Validation failed');
        expect(Object.keys(res.body.details.fieldErrors)).to.deep.equal(Object.keys(query));
      }
    });

    if (revision === 1) {
      it('has no model search in revision 1', async () => {
        await request(ctx.app).get('/api/models/search').query({ q: 'llama' }).expect(404);
      });
    } else {
      it('searches: exact id first, then prefix, then substring, each by run count', async () => {
        const res = await request(ctx.app).get('/api/models/search').query({ q: 'meta/llama-8b' }).expect(200);
        expect(res.body.map((m: { hfId: string }) => m.hfId)).to.deep.equal(['meta/Llama-8B', 'meta/Llama-8B-Instruct']);
        const prefix = await request(ctx.app).get('/api/models/search').query({ q: 'llama' }).expect(200);
        expect(prefix.body.map((m: { hfId: string }) => m.hfId)).to.deep.equal([
          'meta/Llama-8B-Instruct',
          'meta/Llama-8B',
          'quant/Llama-8B-Instruct-GGUF',
          'lora/Llama-8B-Adapter',
          'other/llama-fan',
        ]);
        expect(prefix.body[0]).to.deep.equal({
          hfId: 'meta/Llama-8B-Instruct',
          displayName: 'Llama-8B-Instruct',
          family: 'llama',
          params: 7,
          benchmarkCount: 9,
        });
      });

      it('searches by words in any order, with - and _ ignored (qwen3moe finds qwen3_moe)', async () => {
        await catalogue(ctx.db, [
          { hfId: 'meta-llama/Llama-3.1-8B-Instruct', count: 3 },
          { hfId: 'Qwen/Qwen3-30B-A3B', family: 'qwen3_moe', count: 4 },
        ]);
        try {
          const ids = async (q: string) =>
            (await request(ctx.app).get('/api/models/search').query({ q }).expect(200)).body.map((m: { hfId: string }) => m.hfId);
          expect(await ids('llama 3.1 8b instruct')).to.deep.equal(['meta-llama/Llama-3.1-8B-Instruct']);
          expect(await ids('instruct 3.1')).to.deep.equal(['meta-llama/Llama-3.1-8B-Instruct']);
          expect(await ids('llama3.1')).to.deep.equal(['meta-llama/Llama-3.1-8B-Instruct']);
          expect(await ids('qwen3moe')).to.deep.equal(['Qwen/Qwen3-30B-A3B']);
          expect(await ids('qwen3-moe')).to.deep.equal(['Qwen/Qwen3-30B-A3B']);
          expect(await ids('qwen3_moe')).to.deep.equal(['Qwen/Qwen3-30B-A3B']);
          expect(await ids('llama 3.1 70b')).to.deep.equal([]);
          // `%` and `_` stay literal.
          expect(await ids('%')).to.deep.equal([]);
        } finally {
          await ctx.db('models').whereIn('hf_id', ['meta-llama/Llama-3.1-8B-Instruct', 'Qwen/Qwen3-30B-A3B']).delete();
        }
      });

      it('limits search results to 1-25 (default 10) and requires q', async () => {
        const limited = await request(ctx.app).get('/api/models/search').query({ q: 'a', limit: '2' }).expect(200);
        expect(limited.body).to.have.length(2);
        for (const query of [{}, { q: '' }, { q: 'a', limit: '26' }, { q: 'a', limit: '0' }]) {
          const res = await request(ctx.app).get('/api/models/search').query(query).expect(400);
          expect(res.body.error).to.equal('Validation failed');
        }
      });
    }

    it('shows one model with its base, children and run figures; 404 for an unknown one', async () => {
      const res = await request(ctx.app).get('/api/models/meta/Llama-8B-Instruct').expect(200);
      expect(res.body).to.include({ hfId: 'meta/Llama-8B-Instruct', benchmarkCount: 9 });
      expect(res.body.base).to.include({ hfId: 'meta/Llama-8B' });
      expect(res.body.children.map((c: { hfId: string; relation: string }) => [c.hfId, c.relation])).to.deep.equal([
        ['quant/Llama-8B-Instruct-GGUF', 'quantized'],
      ]);
      expect(res.body.summary).to.deep.equal({ runs: 0, bestTokSOut: null, hardwareProfiles: 0, latestRunAt: null, byHardwareClass: {} });
      const missing = await request(ctx.app).get('/api/models/nobody/nothing').expect(404);
      expect(missing.body.error).to.equal("Model 'nobody/nothing' is not in the catalogue");
    });
  });
}

describe('models API: run counts follow submissions', () => {
  const ctx = useTestApp({}, { fakeHub: true });

  it('counts approved runs per model and summarises them on the model', async () => {
    const { agent, csrf } = await signedUpAgent(ctx.app);
    const { key } = await createKey(agent, csrf);
    for (const [hwClass, hardware, tokSOut] of [
      ['DISCRETE_GPU', { gpuName: 'RTX 4090', vramGb: 24 }, 120],
      ['CPU_ONLY', { cpu: 'EPYC 9654', ramGb: 384 }, 9.5],
    ] as const) {
      ctx.clock.advance(61_000);
      await request(ctx.app)
        .post('/api/speed-tests')
        .set('Authorization', `Bearer ${key}`)
        .send(validSubmission({ hardware: { hwClass, ...hardware }, tokSOut, ttftMs: undefined }))
        .expect(201);
    }
    const list = await request(ctx.app).get('/api/models').expect(200);
    expect(list.body.models[0]).to.include({ hfId: fakeHubModels.dense, benchmarkCount: 2 });
    const detail = await request(ctx.app).get(`/api/models/${fakeHubModels.dense}`).expect(200);
    expect(detail.body.summary).to.deep.include({ runs: 2, bestTokSOut: 120, hardwareProfiles: 2 });
    expect(detail.body.summary.byHardwareClass).to.deep.equal({
      DISCRETE_GPU: { runs: 1, bestTokSOut: 120 },
      CPU_ONLY: { runs: 1, bestTokSOut: 9.5 },
    });
  });
});
