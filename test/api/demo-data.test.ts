import { expect } from 'chai';
import { cardsStreamingAtOnce } from '../../src/lib/hardware-lookup.ts';
import { spawnSync } from 'node:child_process';
import request from 'supertest';
import { seedDemoCatalogue } from '../../src/db/seeds/demo-models.ts';
import { seedDemoListings } from '../../src/db/seeds/demo-listings.ts';
import { seedDemoQuality } from '../../src/db/seeds/demo-quality.ts';
import { seedDemoRuns } from '../../src/db/seeds/demo-runs.ts';
import { getRevisionProfile } from '../../src/revisions.ts';
import { useTestApp } from '../helpers/app.ts';

describe('demo data', () => {
  const ctx = useTestApp();

  before(async function () {
    this.timeout(60_000);
    await seedDemoCatalogue(ctx.db);
  });

  it('adds demo users and a few hundred runs across every hardware class, none of them suspect', async function () {
    this.timeout(60_000);
    const seeded = await seedDemoRuns(ctx.db, getRevisionProfile(3), { runs: 300, now: ctx.clock.now() });
    expect(seeded).to.deep.equal({ users: 8, runs: 300 });
    const classes = await ctx.db('speed_test_runs').distinct('hw_class').pluck('hw_class');
    expect(classes.sort()).to.deep.equal(['CPU_ONLY', 'DISCRETE_GPU', 'UNIFIED']);
    const verdicts = await ctx.db('speed_test_runs').select('plausibility').count('* as n').groupBy('plausibility');
    expect(verdicts.map((v) => v.plausibility)).not.to.include('suspect');
    expect(await ctx.db('users').where({ is_demo: false }).count('* as n').first()).to.deep.equal({ n: 0 });
    const counted = await ctx.db('models').sum('benchmark_count as n').first();
    expect(Number(counted!.n)).to.equal(300);
  });

  it('teaches what real runs look like: commands that match their engine, speeds within the roofline, throughput runs marked', async () => {
    const runs = await ctx
      .db('speed_test_runs as r')
      .join('engines as e', 'e.id', 'r.engine_id')
      .join('models as m', 'm.id', 'r.model_id')
      .select(
        'e.name as engine',
        'm.native_bits_per_weight',
        'r.engine_flags',
        'r.context_length',
        'r.active_sequences',
        'r.spec_decoding',
        'r.plausibility',
        'r.plausibility_reason',
        'r.quantization',
      );
    // The launch command is the one the engine is started with, and says what the run says.
    const binaries: Record<string, RegExp> = {
      'llama.cpp': /^llama-server /,
      vllm: /^vllm serve /,
      sglang: /^python -m sglang\.launch_server /,
      ollama: /(?:^| )ollama run /,
      mlx: /^mlx_lm\.server /,
      lmstudio: /^lms load /,
    };
    for (const run of runs) {
      // A natively quantized model (gpt-oss) is served as published.
      if (run.native_bits_per_weight !== null && ['vllm', 'sglang'].includes(run.engine)) expect(run.quantization).to.equal('MXFP4');
      const command: string = run.engine_flags.commandSnippet;
      expect(command, run.engine).to.match(binaries[run.engine]!);
      const context = /(?:-c|--max-model-len|--context-length) (\d+)/.exec(command);
      if (context) expect(Number(context[1])).to.equal(run.context_length);
    }
    expect(runs.filter((run) => run.native_bits_per_weight !== null && ['vllm', 'sglang'].includes(run.engine)).length).to.be.greaterThan(
      0,
    );
    const singleStream = runs.filter((run) => run.active_sequences === 1 && !run.spec_decoding);
    const throughput = runs.filter((run) => run.active_sequences > 1);
    const speculative = runs.filter((run) => run.spec_decoding);
    // Every single-stream run is judged, and within its bound.
    expect(singleStream.map((run) => run.plausibility)).to.satisfy((verdicts: string[]) => verdicts.every((v) => v === 'plausible'));
    // Throughput runs are a minority, each with its streams, held to N streams x one stream's bound.
    expect(throughput.length).to.be.within(15, 75);
    for (const run of throughput) {
      expect(run.engine_flags.concurrency).to.equal(run.active_sequences);
      expect([run.plausibility, run.plausibility_reason]).to.satisfy(
        ([verdict, reason]: string[]) => verdict === 'plausible' && reason.includes(`${run.active_sequences} streams`),
      );
    }
    expect(speculative.length).to.be.greaterThan(0);
    for (const run of speculative) expect(run.engine_flags.specModel).to.be.a('string');
    // llama.cpp runs name a build that splits layers by default, so a run on several cards is
    // held to one card's bandwidth, as it decodes (not 4× RTX 3090 summed).
    const llamaCpp = await ctx
      .db('speed_test_runs as r')
      .join('engines as e', 'e.id', 'r.engine_id')
      .where('e.name', 'llama.cpp')
      .select('e.version', 'r.engine_flags');
    expect(llamaCpp.length).to.be.greaterThan(0);
    for (const run of llamaCpp)
      expect(
        cardsStreamingAtOnce({ engineName: 'llama.cpp', engineVersion: run.version, engineFlags: run.engine_flags }, 4),
        run.version,
      ).to.equal(1);
    // Spread like real traffic: llama.cpp and Q4_K_M lead, several engines appear.
    const mostCommon = (values: string[]) => {
      const counts = new Map<string, number>();
      for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
      return [...counts].sort((a, b) => b[1] - a[1])[0]![0];
    };
    expect(mostCommon(runs.map((run) => run.engine))).to.equal('llama.cpp');
    expect(mostCommon(runs.map((run) => run.quantization))).to.equal('Q4_K_M');
    expect(new Set(runs.map((run) => run.engine)).size).to.be.at.least(5);
  });

  it('adds nothing the second time', async () => {
    expect(await seedDemoRuns(ctx.db, getRevisionProfile(3))).to.deep.equal({ users: 0, runs: 0 });
    expect((await ctx.db('speed_test_runs').count('* as n').first())!.n).to.equal(300);
  });

  it('adds the demo quality suites, approved, with runs on setups the demo speed runs measured', async function () {
    this.timeout(60_000);
    const seeded = await seedDemoQuality(ctx.db, getRevisionProfile(3), ctx.clock);
    expect(seeded).to.deep.equal({ suites: 3, runs: 72 });
    const suites = await request(ctx.app).get('/api/benchmarks/suites').expect(200);
    expect(suites.body.suites.map((suite: { slug: string }) => suite.slug).sort()).to.deep.equal([
      'arithmetic-qa-mini',
      'commonsense-mc-mini',
      'lm-eval-core',
    ]);
    // Every quality run's model, quantization and hardware profile has a demo speed run.
    const unmatched = await ctx
      .db('quality_runs as q')
      .whereNotExists(
        ctx
          .db('speed_test_runs as r')
          .whereRaw('r.model_id = q.model_id and r.quantization = q.quantization and r.hardware_id = q.hardware_id'),
      )
      .count('* as n')
      .first();
    expect(Number(unmatched!.n)).to.equal(0);
    // The server re-scored the CUSTOM runs' traces and agreed with them.
    const custom = await ctx.db('quality_runs').where({ execution_mode: 'CUSTOM_LOCAL' });
    expect(custom).to.have.length(48);
    for (const run of custom) expect([run.rescored, run.max_disagreement]).to.deep.equal([true, 0]);
    const statuses = await ctx.db('quality_runs').select('status').count('* as n').groupBy('status').orderBy('status');
    expect(statuses.map((row) => [row.status, Number(row.n)])).to.deep.equal([
      ['APPROVED', 63],
      ['PENDING', 9],
    ]);
    for (const suite of suites.body.suites) expect(suite.runCount).to.equal(21);
    const best = await request(ctx.app).get('/api/benchmarks/runs').query({ modelId: custom[0].model_id }).expect(200);
    expect(best.body.suites.length).to.be.greaterThan(0);
    expect(await seedDemoQuality(ctx.db, getRevisionProfile(3), ctx.clock)).to.deep.equal({ suites: 0, runs: 0 });
    expect(await seedDemoQuality(ctx.db, getRevisionProfile(1), ctx.clock)).to.deep.equal({ suites: 0, runs: 0 });
  });

  it('adds demo marketplace listings with generated photos and the sellers\u2019 demo runs as proof (revision 3 only)', async function () {
    this.timeout(60_000);
    expect(await seedDemoListings(ctx.db, getRevisionProfile(2), ctx.clock)).to.deep.equal({ listings: 0 });
    expect(await seedDemoListings(ctx.db, getRevisionProfile(3), ctx.clock)).to.deep.equal({ listings: 6 });
    const feed = (await request(ctx.app).get('/api/marketplace/feed').expect(200)).body;
    expect(feed.listings).to.have.length(6);
    for (const listing of feed.listings) {
      expect(listing.images).to.have.length(2);
      expect(listing.benchmarkRuns.length).to.be.at.least(1);
      for (const run of listing.benchmarkRuns) expect(run.user.username).to.equal(listing.seller.username);
      const photo = await request(ctx.app)
        .get(`${new URL(listing.images[0].thumbnailUrl).pathname}?variant=thumb`)
        .buffer(true)
        .expect(200);
      expect(photo.headers['content-type']).to.match(/^image\/(png|jpeg)$/);
    }
    expect(feed.listings.map((listing: { proof: { matchesListing: boolean } }) => listing.proof.matchesListing).sort()).to.deep.equal([
      false,
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(await seedDemoListings(ctx.db, getRevisionProfile(3), ctx.clock)).to.deep.equal({ listings: 0 });
  });

  it('marks demo runs and users as demo in the API and on the pages', async () => {
    const board = await request(ctx.app).get('/api/leaderboard').query({ limit: '5' }).expect(200);
    expect(board.body.total).to.equal(300);
    for (const row of board.body.rows) {
      expect(row.demo).to.equal(true);
      expect(row.user.demo).to.equal(true);
    }
    const page = await request(ctx.app).get('/').expect(200);
    expect(page.text).to.include('<span class="badge badge-muted" title="sample data">demo</span>');
  });

  it('is refused by npm run seed:demo when NODE_ENV=production', () => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/seed-demo.ts'], {
      encoding: 'utf8',
      env: {
        ...process.env,
        NODE_ENV: 'production',
        SESSION_SECRET: 'x'.repeat(40),
        PUBLIC_URL: 'https://bench.example',
        DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
      },
    });
    expect(result.status).to.equal(1);
    expect(result.stderr).to.include('Refusing to add demo data with NODE_ENV=production');
  });
});
