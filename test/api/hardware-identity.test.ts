/** Hardware identity through the API and pages: a multi-card vramGb total, and an OS written as its users write it. */
import { expect } from 'chai';
import request from 'supertest';
import { useTestApp } from '../helpers/app.ts';
import { up } from '../../migrations/20261201020000_hardware_search_devices.ts';
import { boardLabels, createSeeder, revision } from '../helpers/leaderboard.ts';

describe('hardware identity through the API', () => {
  const ctx = useTestApp({ API_REVISION: '3' }, { fakeHub: true });
  const seeder = createSeeder(ctx, revision(3));
  let twoCards: Record<string, unknown>;

  before(async () => {
    const user = await seeder.signUp('cards');
    // A real client writes the total of two cards as vramGb (DECISIONS.md "Real clients").
    twoCards = await seeder.seedRun('2x4090', user, {
      hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA GeForce RTX 4090', gpuCount: 2, vramGb: 48, os: 'Ubuntu 24.04' },
    });
    await seeder.seedRun('pi', user, {
      hardware: { hwClass: 'CPU_ONLY', cpu: 'Raspberry Pi 5 Model B Rev 1.0', ramGb: 8, os: 'Raspberry Pi OS (Bookworm)' },
    });
    // Names as tools write them, whose catalogue names are not in the text (issue 33 point 5).
    await seeder.seedRun('radv', user, {
      hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'AMD Radeon Graphics (RADV GFX1201)', vramGb: 16 },
    });
    await seeder.seedRun('v100', user, { hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'Tesla V100-PCIE-16GB', vramGb: 16 } });
    await seeder.seedRun('m1pro', user, {
      hardware: { hwClass: 'UNIFIED', chipVendor: 'Apple', chipFamily: 'M1 Pro 8P+2E+16GPU', chipVariant: 'Pro', unifiedMemoryGb: 32 },
    });
    await seeder.seedRun('6650', user, { hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'AMD Radeon RX 6650 XT', vramGb: 8 } });
  });

  it('finds runs by the catalogue name their written hardware resolves to (hardwareName)', async () => {
    expect(await boardLabels(ctx, seeder, { hardwareName: 'RX 9070 GRE' })).to.deep.equal(['radv']);
    expect(await boardLabels(ctx, seeder, { hardwareName: 'NVIDIA Tesla V100' })).to.deep.equal(['v100']);
    expect(await boardLabels(ctx, seeder, { hardwareName: 'Apple M1 Pro' })).to.deep.equal(['m1pro']);
    expect(await boardLabels(ctx, seeder, { hardwareName: 'RX 6650 XT' })).to.deep.equal(['6650']);
  });

  it('backfills the catalogue names into stored profiles and runs (migration hardware_search_devices)', async () => {
    const written = 'amd radeon graphics (radv gfx1201)';
    await ctx.db('hardware_profiles').where('gpu_name', 'AMD Radeon Graphics (RADV GFX1201)').update({ hardware_search: written });
    await ctx.db('speed_test_runs').where('hardware_search', 'like', '%radv gfx1201%').update({ hardware_search: written });
    await up(ctx.db);
    const profile = await ctx.db('hardware_profiles').where('gpu_name', 'AMD Radeon Graphics (RADV GFX1201)').first('hardware_search');
    expect(profile.hardware_search).to.equal(`${written} | amd radeon rx 9070 gre`);
    const runs = await ctx.db('speed_test_runs').where('hardware_search', 'like', '%radv gfx1201%').pluck('hardware_search');
    expect(runs).to.deep.equal([`${written} | amd radeon rx 9070 gre`]);
  });

  it('stores 2x RTX 4090 with vramGb 48 as 24 GB per card, says it was read as the total, and keeps it in the 48 GB tier', async () => {
    const res = await request(ctx.app).get(`/api/speed-tests/${twoCards.id}`).expect(200);
    expect(res.body.hardware).to.deep.include({ gpuCount: 2, vramGb: 24, totalVramGb: 48, vramGbReadAsTotal: true });
    expect(await boardLabels(ctx, seeder, { memTier: '48' })).to.include('2x4090');
    expect(await boardLabels(ctx, seeder, { memTier: '96' })).to.not.include('2x4090');
    const page = await request(ctx.app).get(`/runs/${twoCards.id}`).expect(200);
    expect(page.text).to.include('read as the total of the cards');
  });

  it('finds the Raspberry Pi run under os=linux', async () => {
    expect(await boardLabels(ctx, seeder, { os: 'linux' })).to.have.members(['2x4090', 'pi']);
  });
});
