/**
 * Hardware filters resolved in memory (issue 37): while the read index is ready, the hardware
 * facets' conditions are read against a copy of the profiles (src/runs/profile-conditions.ts)
 * instead of a query. For queries drawn from the seeded catalogue's own names, values and
 * spellings (case, vendor words, LIKE's wildcards, memory on and around the tiers' edges), it
 * must find exactly the profiles Postgres finds.
 */
import { expect } from 'chai';
import { buckets, hwClasses } from '../../src/constants.ts';
import { getRevisionProfile } from '../../src/revisions.ts';
import { hardwareProfileFilter, leaderboardFacets, resultsListFacets } from '../../src/runs/facets.ts';
import { applyProfileConditions, ProfileTable } from '../../src/runs/profile-conditions.ts';
import { prng, seedDatabase } from '../bench/seed.ts';
import { useTestApp } from '../helpers/app.ts';

describe('hardware filters resolved from a copy of the profiles', function () {
  this.timeout(60_000);
  const ctx = useTestApp({ READ_INDEX: 'off' });

  before(async () => {
    await seedDatabase(ctx.db, getRevisionProfile(3), {
      runs: 50,
      users: 5,
      models: 5,
      hardwareProfiles: 120,
      days: 5,
      log: () => undefined,
    });
    // Memory exactly on a tier's edge and just past it, a profile without memory or names, and names with LIKE's wildcards.
    const ids = (await ctx.db('hardware_profiles').select('id').limit(4)).map((row) => row.id as string);
    await ctx.db('hardware_profiles').where({ id: ids[0] }).update({ memory_gb: 24 });
    await ctx.db('hardware_profiles').where({ id: ids[1] }).update({ memory_gb: 24.000001 });
    await ctx.db('hardware_profiles').where({ id: ids[2] }).update({ memory_gb: null, hardware_search: null });
    await ctx.db('hardware_profiles').where({ id: ids[3] }).update({ hardware_search: 'rtx_4090 100%\\edition' });
    expect(ids).to.have.length(4);
  });

  it("finds exactly the profiles Postgres finds, for the leaderboard's and the list's hardware facets", async () => {
    const rows = await ctx
      .db('hardware_profiles')
      .select('hardware_search', 'gpu_name', 'chip_vendor', 'chip_family', 'chip_variant', 'os_family');
    const words = [
      ...new Set(rows.flatMap((row) => String(row.hardware_search ?? '').split(/\s+/)).filter(Boolean)),
      'nvidia',
      'Apple',
      '%',
      '_',
      'rtx_4090',
      '100%',
      '\\edition',
      'M4 MAX',
    ];
    const valuesOf = (column: string) => [...new Set(rows.map((row) => row[column]).filter(Boolean))] as string[];
    const rng = prng(3737);
    const pick = <T>(items: readonly T[]) => items[Math.floor(rng() * items.length)]!;
    const table = await ProfileTable.load(ctx.db);
    const leaderboard: (() => [string, unknown])[] = [
      () => ['hardwareName', Array.from({ length: 1 + Math.floor(rng() * 3) }, () => pick(words)).join(' ')],
      () => [
        'hardwareName',
        pick(words)
          .toUpperCase()
          .slice(0, 1 + Math.floor(rng() * 4)),
      ],
      () => ['hwClass', pick(hwClasses)],
      () => ['memTier', pick(buckets.memTier)],
      () => ['memoryAtMost', pick([8, 16, 23, 24, 25, 48, 128, 512])],
      () => ['os', pick(buckets.os)],
    ];
    const list: (() => [string, unknown])[] = [
      () => ['gpuName', rng() < 0.8 ? pick(valuesOf('gpu_name')) : pick(valuesOf('gpu_name')).toLowerCase()],
      () => ['chipVendor', pick(valuesOf('chip_vendor'))],
      () => ['chipFamily', pick(valuesOf('chip_family'))],
      () => ['chipVariant', pick(valuesOf('chip_variant'))],
      () => ['hwClass', pick(hwClasses)],
    ];
    let nonEmpty = 0;
    for (let i = 0; i < 400; i += 1) {
      const [registry, draws] = i % 2 === 0 ? [leaderboardFacets, leaderboard] : [resultsListFacets, list];
      const query = Object.fromEntries(Array.from({ length: 1 + Math.floor(rng() * 3) }, () => pick(draws)()));
      const { conditions } = hardwareProfileFilter(registry, query);
      const sql = (
        await ctx
          .db('hardware_profiles')
          .modify((q) => applyProfileConditions(q, conditions))
          .pluck('id')
      ).sort();
      expect(table.matching(conditions).sort(), JSON.stringify(query)).to.deep.equal(sql);
      if (sql.length > 0) nonEmpty += 1;
    }
    // Most queries find some profiles (else the comparison proves little).
    expect(nonEmpty).to.be.above(200);
  });
});
