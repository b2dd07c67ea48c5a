import { expect } from 'chai';
import request from 'supertest';
import { createKey, signedUpAgent, useTestApp } from '../helpers/app.ts';
import { fakeHubModels } from '../helpers/fake-hub.ts';
import { validSubmission } from '../helpers/fixtures.ts';

/** What the count table must hold: recounted from the runs themselves. */
const RECOUNT = `
  select d.dimension, d.value, count(*)::bigint as n from speed_test_runs r cross join lateral (values
    ('all', ''), ('hwClass', r.hw_class), ('memTier', r.mem_tier::text), ('engineName', r.engine_name),
    ('quantization', r.quantization), ('verified', r.user_verified::text), ('paramSize', r.param_bucket::text),
    ('os', r.os_family), ('backend', r.backend), ('isMoE', r.model_is_moe::text), ('contextLen', r.ctx_bucket::text),
    ('batchSize', least(r.batch_size, 8)::text), ('activeSequences', least(r.active_sequences, 8)::text),
    ('modelId', r.model_id::text), ('hardwareId', r.hardware_id::text),
    ('day', to_char(r.created_at at time zone 'UTC', 'YYYY-MM-DD'))
  ) as d(dimension, value)
  where r.status = 'APPROVED' and d.value is not null
  group by 1, 2`;

const RECUBE = `
  select hw_class, mem_tier, engine_name, quantization, param_bucket, count(*)::int as n from speed_test_runs
  where status = 'APPROVED' group by 1, 2, 3, 4, 5`;

describe('exact totals from the run-count table', () => {
  // The SQL path's totals (READ_INDEX=off, and while an index is being built).
  const ctx = useTestApp({ READ_INDEX: 'off' }, { fakeHub: true });
  let userId: string;
  let key: string;
  const runIds: string[] = [];

  async function submit(run: Record<string, unknown>): Promise<string> {
    ctx.clock.advance(61_000);
    const res = await request(ctx.app)
      .post('/api/speed-tests')
      .set('Authorization', `Bearer ${key}`)
      .send(validSubmission({ tokSOut: 50, ttftMs: undefined, ...run }))
      .expect(201);
    return res.body.id;
  }

  async function expectTableMatchesRuns() {
    const kept = (
      await ctx.db('speed_test_run_counts').where('n', '>', 0).whereNot('dimension', 'like', '%+%').select('dimension', 'value', 'n')
    ).map((r) => `${r.dimension}=${r.value}:${r.n}`);
    const recounted = (await ctx.db.raw(RECOUNT)).rows.map(
      (r: { dimension: string; value: string; n: string }) => `${r.dimension}=${r.value}:${r.n}`,
    );
    expect(kept.sort()).to.deep.equal(recounted.sort());
    expect(await ctx.db('speed_test_run_counts').where('n', '<', 0).first()).to.equal(undefined);
    const cube = (await ctx.db('speed_test_run_cube').where('n', '>', 0).select('*')).map((c) => JSON.stringify(c));
    const recube = (await ctx.db.raw(RECUBE)).rows.map((c: Record<string, unknown>) => JSON.stringify(c));
    expect(cube.sort()).to.deep.equal(recube.sort());
  }

  before(async () => {
    const { agent, csrf, username } = await signedUpAgent(ctx.app);
    userId = (await ctx.db('users').where({ username }).first('id')).id;
    ({ key } = await createKey(agent, csrf));
    const runs = [
      {
        hfId: fakeHubModels.dense,
        hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA GeForce RTX 4090', vramGb: 24, os: 'Ubuntu' },
        batchSize: 1,
        backend: 'cuda',
      },
      {
        hfId: fakeHubModels.dense,
        hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA GeForce RTX 3090', vramGb: 24, gpuCount: 2 },
        batchSize: 16,
      },
      {
        hfId: fakeHubModels.moeByArchitecture,
        hardware: { hwClass: 'UNIFIED', chipVendor: 'Apple', chipFamily: 'M4', chipVariant: 'Max', unifiedMemoryGb: 128, os: 'macOS' },
        contextLength: 8192,
      },
      // Batch 1 with eight requests in flight: revision 3's batchSize 8 bucket (aggregate active sequences).
      {
        hfId: fakeHubModels.ggufQuant,
        hardware: { hwClass: 'CPU_ONLY', cpu: 'AMD EPYC 9654', ramGb: 384 },
        quantization: 'Q8_0',
        engineFlags: { concurrency: 8, commandSnippet: 'llama-server -m m.gguf -np 8' },
      },
    ];
    for (const run of runs) runIds.push(await submit(run));
  });

  it('keeps one exact count per filter value as runs are submitted', async () => {
    await expectTableMatchesRuns();
    const cases: [Record<string, string>, number][] = [
      [{}, 4],
      [{ hwClass: 'DISCRETE_GPU' }, 2],
      [{ memTier: '48' }, 1],
      [{ quantization: 'Q8_0' }, 1],
      [{ batchSize: '8' }, 2],
      [{ batchSize: '1' }, 2],
      [{ isMoE: 'true' }, 1],
      [{ os: 'linux' }, 1],
      [{ contextLen: '8192' }, 1],
      [{ hfId: fakeHubModels.dense.toUpperCase() }, 2],
      [{ hfId: 'nobody/nothing' }, 0],
      [{ verified: 'false' }, 4],
    ];
    for (const [query, total] of cases) {
      const res = await request(ctx.app).get('/api/leaderboard').query(query).expect(200);
      expect(res.body.total, JSON.stringify(query)).to.equal(total);
    }
  });

  it("answers revision 3's batchSize (aggregate active sequences) from the table, alone and paired", async () => {
    for (const [query, key] of [
      [{ batchSize: '1' }, { dimension: 'activeSequences', value: '1' }],
      [
        { batchSize: '8', hwClass: 'CPU_ONLY' },
        { dimension: 'activeSequences+hwClass', value: '8|CPU_ONLY' },
      ],
    ] as const) {
      const before = (await request(ctx.app).get('/api/leaderboard').query(query).expect(200)).body.total;
      await ctx.db('speed_test_run_counts').where(key).increment('n', 40);
      const tampered = (await request(ctx.app).get('/api/leaderboard').query(query).expect(200)).body.total;
      await ctx.db('speed_test_run_counts').where(key).decrement('n', 40);
      expect(tampered, JSON.stringify(query)).to.equal(before + 40);
    }
  });

  it('follows moderation, verification and deletion in the same transaction', async () => {
    await ctx.db('speed_test_runs').where({ id: runIds[0] }).update({ status: 'REJECTED' });
    await expectTableMatchesRuns();
    expect((await request(ctx.app).get('/api/leaderboard').expect(200)).body.total).to.equal(3);

    await ctx.db('speed_test_runs').where({ user_id: userId }).update({ user_verified: true });
    await expectTableMatchesRuns();
    expect((await request(ctx.app).get('/api/leaderboard').query({ verified: 'true' }).expect(200)).body.total).to.equal(3);

    await ctx.db('speed_test_runs').where({ id: runIds[1] }).delete();
    await expectTableMatchesRuns();
    expect((await request(ctx.app).get('/api/leaderboard').query({ hwClass: 'DISCRETE_GPU' }).expect(200)).body.total).to.equal(0);
  });

  it("follows an owner's correction of filter facts and withdrawal: table, cube and day counts stay exact", async () => {
    // A new run, corrected onto another model, class, tier, context, quantization and stream count, then withdrawn.
    const unified = async () => (await request(ctx.app).get('/api/leaderboard').query({ hwClass: 'UNIFIED' }).expect(200)).body.total;
    const id = await submit({
      hfId: fakeHubModels.dense,
      hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA GeForce RTX 4090', vramGb: 24 },
    });
    await expectTableMatchesRuns();
    const before = await unified();
    await request(ctx.app)
      .patch(`/api/speed-tests/${id}`)
      .set('Authorization', `Bearer ${key}`)
      .send({
        hfId: fakeHubModels.moeByArchitecture,
        hardware: { hwClass: 'UNIFIED', chipVendor: 'Apple', chipFamily: 'M3', chipVariant: 'Ultra', unifiedMemoryGb: 192, os: 'macOS' },
        contextLength: 32768,
        quantization: 'Q8_0',
        engineFlags: { commandSnippet: 'llama-server -np 4' },
      })
      .expect(200);
    await expectTableMatchesRuns();
    expect(await unified()).to.equal(before + 1);
    await request(ctx.app).delete(`/api/speed-tests/${id}`).set('Authorization', `Bearer ${key}`).expect(200);
    await expectTableMatchesRuns();
    expect(await unified()).to.equal(before);
  });

  it('answers every pair of filters from the table exactly as counting would', async () => {
    const values: Record<string, string[]> = {
      hwClass: ['DISCRETE_GPU', 'UNIFIED', 'CPU_ONLY'],
      memTier: ['24', '48', '128'],
      quantization: ['Q4_K_M', 'Q8_0'],
      verified: ['true', 'false'],
      isMoE: ['true', 'false'],
      batchSize: ['1', '8'],
      os: ['linux', 'macos'],
      hfId: [fakeHubModels.dense, fakeHubModels.moeByArchitecture],
    };
    const names = Object.keys(values);
    let checked = 0;
    for (let i = 0; i < names.length; i += 1) {
      for (let j = i + 1; j < names.length; j += 1) {
        for (const a of values[names[i]!]!) {
          for (const b of values[names[j]!]!) {
            const pair = { [names[i]!]: a, [names[j]!]: b };
            const fromTable = await request(ctx.app).get('/api/leaderboard').query(pair).expect(200);
            // plausible=true keeps every run here (none is suspect) but is not kept in the table: this one is counted.
            const counted = await request(ctx.app)
              .get('/api/leaderboard')
              .query({ ...pair, plausible: 'true' })
              .expect(200);
            expect(fromTable.body.total, JSON.stringify(pair)).to.equal(counted.body.total);
            checked += 1;
          }
        }
      }
    }
    expect(checked).to.be.greaterThan(100);
    // The pair total really comes from the table: the row named by the sorted pair.
    const key = { dimension: 'hwClass+memTier', value: 'UNIFIED|128' };
    expect(await ctx.db('speed_test_run_counts').where(key).first('n')).to.deep.equal({ n: 1 });
    await ctx.db('speed_test_run_counts').where(key).update({ n: 99 });
    const tampered = await request(ctx.app).get('/api/leaderboard').query({ memTier: '128', hwClass: 'UNIFIED' }).expect(200);
    await ctx.db('speed_test_run_counts').where(key).update({ n: 1 });
    expect(tampered.body.total).to.equal(99);
    const res = await request(ctx.app).get('/api/leaderboard').query({ hwClass: 'UNIFIED', isMoE: 'true' }).expect(200);
    expect(res.body.total).to.equal(1);
  });

  it('answers hardwareName, with hardware filters and one run filter, by summing over the matching profiles', async () => {
    await submit({
      hfId: fakeHubModels.dense,
      hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA GeForce RTX 4090', vramGb: 24, os: 'Ubuntu' },
      quantization: 'Q8_0',
    });
    await submit({
      hfId: fakeHubModels.moeByArchitecture,
      hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA GeForce RTX 3090', vramGb: 24, gpuCount: 2 },
      batchSize: 16,
    });
    await submit({
      hfId: fakeHubModels.dense,
      hardware: { hwClass: 'UNIFIED', chipVendor: 'Apple', chipFamily: 'M4', chipVariant: 'Pro', unifiedMemoryGb: 48, os: 'macOS' },
    });
    await expectTableMatchesRuns();
    const extras: Record<string, string>[] = [
      {},
      { hwClass: 'DISCRETE_GPU' },
      { hwClass: 'UNIFIED' },
      { memTier: '48' },
      { memTier: '24' },
      { os: 'macos' },
      { quantization: 'Q8_0' },
      { batchSize: '8' },
      { verified: 'true' },
      { hwClass: 'DISCRETE_GPU', memTier: '48' },
      { hwClass: 'DISCRETE_GPU', quantization: 'Q4_K_M' },
      { hfId: fakeHubModels.dense },
      { quantization: 'Q8_0', batchSize: '1' },
    ];
    let nonZero = 0;
    for (const hardwareName of ['rtx', '4090', 'apple m4', 'M4', 'epyc', 'no such gpu']) {
      for (const extra of extras) {
        const query = { hardwareName, ...extra };
        const fromTable = await request(ctx.app).get('/api/leaderboard').query(query).expect(200);
        const counted = await request(ctx.app)
          .get('/api/leaderboard')
          .query({ ...query, plausible: 'true' })
          .expect(200);
        expect(fromTable.body.total, JSON.stringify(query)).to.equal(counted.body.total);
        expect(
          fromTable.body.rows.map((r: { id: string }) => r.id),
          JSON.stringify(query),
        ).to.deep.equal(counted.body.rows.map((r: { id: string }) => r.id));
        if (fromTable.body.total > 0) nonZero += 1;
      }
    }
    expect(nonZero).to.be.greaterThan(15);
    const res = await request(ctx.app).get('/api/leaderboard').query({ hardwareName: 'RTX', memTier: '48' }).expect(200);
    expect(res.body.total).to.equal(1);
    expect(res.body.rows[0].hardware.gpus ?? res.body.rows[0].hardware.gpuName).to.not.equal(undefined);
    // The total really is the sum of the profiles' rows in the table.
    const m4 = await ctx.db('hardware_profiles').where('hardware_search', 'like', '%m4%').pluck('id');
    expect(m4).to.have.length(2);
    await ctx.db('speed_test_run_counts').where({ dimension: 'hardwareId', value: m4[0] }).increment('n', 10);
    const tampered = await request(ctx.app).get('/api/leaderboard').query({ hardwareName: 'm4' }).expect(200);
    await ctx.db('speed_test_run_counts').where({ dimension: 'hardwareId', value: m4[0] }).decrement('n', 10);
    expect(tampered.body.total).to.equal(12);
  });

  it('answers three to five of the main filters from the cube, and sizes the page from the total', async function () {
    // CPU-bound: 768 requests one after another through the app and Postgres. 3-8 s in a
    // parallel run on 2 cores, but over the default 20 s once with a second suite running.
    this.timeout(60_000);
    await submit({
      hfId: fakeHubModels.dense,
      engineName: 'vllm',
      hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA GeForce RTX 4090', vramGb: 24 },
      quantization: 'AWQ',
    });
    await submit({
      hfId: fakeHubModels.dense,
      hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA GeForce RTX 4090', vramGb: 24 },
      quantization: 'AWQ',
    });
    await expectTableMatchesRuns();
    const values: Record<string, string[]> = {
      hwClass: ['DISCRETE_GPU', 'UNIFIED'],
      memTier: ['24', '48'],
      engineName: ['llama.cpp', 'vllm'],
      quantization: ['Q4_K_M', 'AWQ'],
      paramSize: ['7', '30'],
    };
    const names = Object.keys(values);
    let checked = 0;
    let nonZero = 0;
    // Every combination of three or more of the five, each with every value.
    for (let mask = 0; mask < 1 << names.length; mask += 1) {
      const chosen = names.filter((_, i) => mask & (1 << i));
      if (chosen.length < 3) continue;
      const combos = chosen.reduce<Record<string, string>[]>(
        (acc, name) => acc.flatMap((c) => values[name]!.map((v) => ({ ...c, [name]: v }))),
        [{}],
      );
      for (const combo of combos) {
        for (const offset of ['0', '1']) {
          const query = { ...combo, offset, limit: '1' };
          const fromCube = await request(ctx.app).get('/api/leaderboard').query(query).expect(200);
          const counted = await request(ctx.app)
            .get('/api/leaderboard')
            .query({ ...query, plausible: 'true' })
            .expect(200);
          expect(fromCube.body.total, JSON.stringify(query)).to.equal(counted.body.total);
          expect(
            fromCube.body.rows.map((r: { id: string }) => r.id),
            JSON.stringify(query),
          ).to.deep.equal(counted.body.rows.map((r: { id: string }) => r.id));
          checked += 1;
          if (fromCube.body.total > 1) nonZero += 1;
        }
      }
    }
    expect(checked).to.be.greaterThan(300);
    expect(nonZero).to.be.greaterThan(0);
    // The total really is the cube's: a tampered cell shows, and sizes the page (no rows past the real ones).
    const cell = { hw_class: 'DISCRETE_GPU', mem_tier: 24, engine_name: 'vllm', quantization: 'AWQ' };
    await ctx.db('speed_test_run_cube').where(cell).increment('n', 5);
    const tampered = await request(ctx.app)
      .get('/api/leaderboard')
      .query({ hwClass: 'DISCRETE_GPU', memTier: '24', engineName: 'vllm', quantization: 'AWQ' })
      .expect(200);
    await ctx.db('speed_test_run_cube').where(cell).decrement('n', 5);
    expect(tampered.body.total).to.equal(6);
    expect(tampered.body.rows).to.have.length(1);
    // A total of 0 answers an empty page without reading runs.
    const none = await request(ctx.app)
      .get('/api/leaderboard')
      .query({ hwClass: 'UNIFIED', engineName: 'vllm', quantization: 'AWQ' })
      .expect(200);
    expect(none.body).to.deep.include({ total: 0, rows: [] });
  });

  it('answers results-list totals for class, verified, model tree and hardware filters from the table', async () => {
    await expectTableMatchesRuns();
    const values: Record<string, string[]> = {
      hwClass: ['DISCRETE_GPU', 'UNIFIED'],
      verified: ['true', 'false'],
      hfId: [fakeHubModels.dense, fakeHubModels.moeByArchitecture, 'nobody/nothing'],
      gpuName: ['NVIDIA GeForce RTX 4090', 'No Such GPU'],
      chipVendor: ['Apple'],
    };
    const queries: Record<string, string>[] = [{}];
    for (const [name, options] of Object.entries(values)) {
      for (const existing of [...queries])
        for (const value of options) if (Object.keys(existing).length < 2) queries.push({ ...existing, [name]: value });
    }
    let nonZero = 0;
    for (const query of queries) {
      const fromTable = await request(ctx.app)
        .get('/api/speed-tests')
        .query({ ...query, limit: '2' })
        .expect(200);
      // dateFrom long ago matches every run but is not kept in the table: this one is counted.
      const counted = await request(ctx.app)
        .get('/api/speed-tests')
        .query({ ...query, limit: '2', dateFrom: '2000-01-01T00:00:00Z' })
        .expect(200);
      expect(fromTable.body.total, JSON.stringify(query)).to.equal(counted.body.total);
      expect(
        fromTable.body.benchmarks.map((r: { id: string }) => r.id),
        JSON.stringify(query),
      ).to.deep.equal(counted.body.benchmarks.map((r: { id: string }) => r.id));
      if (fromTable.body.total > 0) nonZero += 1;
    }
    expect(queries.length).to.be.greaterThan(30);
    expect(nonZero).to.be.greaterThan(10);
    // The total really is the table's: the 4090 profile's row, tampered, shows.
    const [rtx4090] = await ctx.db('hardware_profiles').where({ gpu_name: 'NVIDIA GeForce RTX 4090', gpu_count: 1 }).pluck('id');
    const real = (await request(ctx.app).get('/api/speed-tests').query({ gpuName: 'NVIDIA GeForce RTX 4090' }).expect(200)).body.total;
    await ctx.db('speed_test_run_counts').where({ dimension: 'hardwareId', value: rtx4090 }).increment('n', 7);
    const tampered = await request(ctx.app).get('/api/speed-tests').query({ gpuName: 'NVIDIA GeForce RTX 4090' }).expect(200);
    await ctx.db('speed_test_run_counts').where({ dimension: 'hardwareId', value: rtx4090 }).decrement('n', 7);
    expect(tampered.body.total).to.equal(real + 7);
  });

  it('answers since, alone and with one of the five main filters, from whole days in the table plus the cut-off day counted', async () => {
    // Runs spread over 40 days, a few hours apart, so windows cut days in the middle.
    for (let i = 0; i < 14; i += 1) {
      ctx.clock.advance(3 * 86_400_000 - 7 * 3_600_000);
      await submit({
        hfId: i % 2 ? fakeHubModels.dense : fakeHubModels.moeByArchitecture,
        engineName: i % 3 ? 'llama.cpp' : 'vllm',
        hardware:
          i % 4
            ? { hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA GeForce RTX 4090', vramGb: 24 }
            : { hwClass: 'UNIFIED', chipVendor: 'Apple', chipFamily: 'M4', chipVariant: 'Max', unifiedMemoryGb: 128 },
        quantization: i % 5 ? 'Q4_K_M' : 'Q8_0',
      });
    }
    await expectTableMatchesRuns();
    const extras: Record<string, string>[] = [
      {},
      { hwClass: 'UNIFIED' },
      { memTier: '24' },
      { engineName: 'vllm' },
      { quantization: 'Q8_0' },
      { paramSize: '7' },
    ];
    let partial = 0;
    for (const hoursLater of [0, 5, 11, 17]) {
      ctx.clock.advance(hoursLater * 3_600_000);
      for (const since of ['7d', '30d']) {
        for (const extra of extras) {
          const query = { since, ...extra };
          const fromTable = await request(ctx.app).get('/api/leaderboard').query(query).expect(200);
          const counted = await request(ctx.app)
            .get('/api/leaderboard')
            .query({ ...query, plausible: 'true' })
            .expect(200);
          expect(fromTable.body.total, `${JSON.stringify(query)} +${hoursLater}h`).to.equal(counted.body.total);
          expect(fromTable.body.rows.map((r: { id: string }) => r.id)).to.deep.equal(counted.body.rows.map((r: { id: string }) => r.id));
          const all = await request(ctx.app).get('/api/leaderboard').query(extra).expect(200);
          if (fromTable.body.total > 0 && fromTable.body.total < all.body.total) partial += 1;
        }
      }
    }
    // The windows really cut the runs: most checks kept some runs and left others out.
    expect(partial).to.be.greaterThan(20);
    // Whole days come from the table: a tampered day row shows.
    const today = ctx.clock.now().getTime();
    const threeDaysAgo = new Date(today - 3 * 86_400_000).toISOString().slice(0, 10);
    const before = (await request(ctx.app).get('/api/leaderboard').query({ since: '7d' }).expect(200)).body.total;
    await ctx
      .db('speed_test_run_counts')
      .insert({ dimension: 'day', value: threeDaysAgo, n: 0 })
      .onConflict(['dimension', 'value'])
      .ignore();
    await ctx.db('speed_test_run_counts').where({ dimension: 'day', value: threeDaysAgo }).increment('n', 4);
    const tampered = (await request(ctx.app).get('/api/leaderboard').query({ since: '7d' }).expect(200)).body.total;
    await ctx.db('speed_test_run_counts').where({ dimension: 'day', value: threeDaysAgo }).decrement('n', 4);
    expect(tampered).to.equal(before + 4);
  });
});
