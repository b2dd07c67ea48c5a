/** GET /api/leaderboard, revision 1: ordering, paging, ties and the base filters over more than a page. */
import { expect } from 'chai';
import { useTestApp } from '../helpers/app.ts';
import { fakeHubModels } from '../helpers/fake-hub.ts';
import { allBut, createSeeder, filterCases, page, revision, type Body, type SeedUser } from '../helpers/leaderboard.ts';

describe('GET /api/leaderboard, revision 1: ordering and paging over 58 runs', () => {
  // strict: a run is rejected straight in the database (seeder.reject), and the next read must not show it.
  const ctx = useTestApp({ API_REVISION: '1', READ_INDEX_FRESHNESS: 'strict' }, { fakeHub: true });
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
      [
        'uni16',
        cat,
        { hardware: { hwClass: 'UNIFIED', chipVendor: 'Apple', chipFamily: 'M2', chipVariant: 'Pro', unifiedMemoryGb: 16 }, tokSOut: 120 },
      ],
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
    expect(middle.rows.map((row) => [seeder.labelOf(row), row.rank])).to.deep.equal([
      ['tie2', 2],
      ['tie3', 3],
    ]);
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
