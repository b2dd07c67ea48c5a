/**
 * The read index (issue 15) answers exactly what the SQL path answers: thousands of random
 * filter / sort / offset / bestPer combinations over a seeded database, the same run ids
 * in the same ranks and the same exact totals; also after runs are rejected and removed
 * from the index, and after a run's facts change.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { buildRunIndex, indexedRunOf, indexFilterOf } from '../../src/read-index/build.ts';
import { INDEX_SORTS, type RunIndex } from '../../src/read-index/run-index.ts';
import { getRevisionProfile } from '../../src/revisions.ts';
import type { LeaderboardQuery } from '../../src/schemas/leaderboard-query.schema.ts';
import { createLeaderboardService } from '../../src/services/leaderboard.service.ts';
import { buckets } from '../../src/constants.ts';
import { seedDatabase } from '../bench/seed.ts';
import { useTestApp } from '../helpers/app.ts';

const profile = getRevisionProfile(3);

describe('Read index: the same answers as the SQL path', function () {
  this.timeout(120_000);
  const ctx = useTestApp();
  let index: RunIndex;
  let values: Record<string, unknown[]>;

  before(async () => {
    // The bench's seeder (one INSERT ... SELECT): thousands of runs in seconds, with the skew of real traffic.
    await seedDatabase(ctx.db, profile, { runs: 5000, users: 300, models: 120, hardwareProfiles: 150, days: 60, log: () => undefined });
    // Some runs are not approved: neither path may show them.
    await ctx.db('speed_test_runs').whereIn('id', ctx.db('speed_test_runs').select('id').orderBy('id').limit(300)).update({ status: 'REJECTED' });
    index = await buildRunIndex(ctx.db);
    const distinct = async (column: string) => (await ctx.db('speed_test_runs').distinct(column).whereNotNull(column)).map((row) => row[column]);
    values = {
      hfId: (await ctx.db('models').join('speed_test_runs as r', 'r.model_id', 'models.id').distinct('models.hf_id')).map((row) => row.hf_id.toUpperCase()),
      hwClass: await distinct('hw_class'),
      memTier: await distinct('mem_tier'),
      engineName: await distinct('engine_name'),
      quantization: await distinct('quantization'),
      paramSize: await distinct('param_bucket'),
      os: await distinct('os_family'),
      backend: await distinct('backend'),
      modelFamily: (await distinct('model_family')).map((family) => String(family).slice(1, 4).toUpperCase()),
      hardwareName: (await ctx.db('hardware_profiles').pluck('hardware_search')).map((text: string) => text.slice(2, 8)),
      contextLen: await distinct('ctx_bucket'),
      // The query takes 1-8 (8: eight or more).
      batchSize: [...(await distinct('batch_size')).filter((size) => Number(size) < buckets.batchSizeOpenEnded), buckets.batchSizeOpenEnded],
      verified: [true, false],
      isMoE: [true, false],
      since: Object.keys(buckets.since),
      plausible: [true],
    };
  });

  const leaderboard = () => createLeaderboardService({ db: ctx.db, profile, clock: ctx.clock });

  /** Comparisons with at least one row on the page: the property must not pass on empty answers alone. */
  let withRows = 0;

  async function compare(query: LeaderboardQuery): Promise<void> {
    const sql = await leaderboard().page(query);
    const fromSql = (JSON.parse(sql.rowsJson) as { id: string; rank: number }[]).map((row) => row.id);
    const fromIndex = index.query({ filter: await indexFilterOf(ctx.db, ctx.clock, query), sort: query.sort as (typeof INDEX_SORTS)[number], offset: query.offset, limit: query.limit, bestPerHardware: query.bestPer === 'hardware' });
    expect({ ids: fromIndex.ids, total: fromIndex.total }, JSON.stringify(query)).to.deep.equal({ ids: fromSql, total: sql.total });
    if (fromSql.length > 0) withRows += 1;
  }

  const queries = () =>
    fc
      .record({
        filters: fc.subarray(['hfId', 'hwClass', 'memTier', 'engineName', 'quantization', 'paramSize', 'os', 'backend', 'modelFamily', 'hardwareName', 'contextLen', 'batchSize', 'verified', 'isMoE', 'since', 'plausible'], { maxLength: 4 }),
        picks: fc.array(fc.nat(), { minLength: 4, maxLength: 4 }),
        sort: fc.constantFrom(...INDEX_SORTS),
        bestPer: fc.boolean(),
        offset: fc.oneof(fc.constant(0), fc.nat(60), fc.nat(5000)),
        limit: fc.integer({ min: 1, max: 50 }),
      })
      .map(({ filters, picks, sort, bestPer, offset, limit }) => {
        const query: Record<string, unknown> = { sort, offset, limit, format: 'json' };
        filters.forEach((name, n) => {
          const options = values[name]!;
          query[name] = options[picks[n]! % options.length];
        });
        if (bestPer) query.bestPer = 'hardware';
        return query as unknown as LeaderboardQuery;
      });

  it('for 2,000 random queries', async () => {
    expect(index.count).to.equal(Number((await ctx.db('speed_test_runs').where({ status: 'APPROVED' }).count('* as n').first())!.n));
    await fc.assert(fc.asyncProperty(queries(), compare), { numRuns: 2000, seed: 15 });
    expect(withRows, 'queries whose page had rows').to.be.above(600);
  });

  it('after runs are rejected (removed) and a run\'s facts change (replaced)', async () => {
    const rejected = await ctx.db('speed_test_runs').where({ status: 'APPROVED', hw_class: 'DISCRETE_GPU' }).orderBy('tok_s_out', 'desc').limit(30).pluck('id');
    await ctx.db('speed_test_runs').whereIn('id', rejected).update({ status: 'REJECTED' });
    for (const id of rejected) index.remove(id);
    const changed = await ctx.db('speed_test_runs').where({ status: 'APPROVED' }).orderBy('id').first('id');
    await ctx.db('speed_test_runs').where({ id: changed.id }).update({ user_verified: ctx.db.raw('not user_verified') });
    const row = await ctx.db('speed_test_runs as r').select(ctx.db.raw('r.*, (extract(epoch from r.created_at) * 1000000)::float8 as created_at_us')).where('r.id', changed.id).first();
    index.upsert(indexedRunOf(row));
    await fc.assert(fc.asyncProperty(queries(), compare), { numRuns: 300, seed: 16 });
  });
});
