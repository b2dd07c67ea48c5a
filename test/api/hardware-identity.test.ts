/** Hardware identity through the API and pages: a multi-card vramGb total, and an OS written as its users write it. */
import { expect } from 'chai';
import request from 'supertest';
import { useTestApp } from '../helpers/app.ts';
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
