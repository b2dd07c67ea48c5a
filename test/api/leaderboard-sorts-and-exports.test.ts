/** GET /api/leaderboard, revision 3: the sorts, bestPer=hardware, and the CSV and JSON Lines exports. */
import { expect } from 'chai';
import { usdPerUnit } from '../../src/data/fx-rates.ts';
import { useTestApp } from '../helpers/app.ts';
import { fakeHubModels } from '../helpers/fake-hub.ts';
import {
  boardLabels,
  createSeeder,
  csvRecords,
  CSV_COLUMNS,
  download,
  page,
  parseCsv,
  revision,
  type Body,
  type Query,
  type Row,
} from '../helpers/leaderboard.ts';

describe('GET /api/leaderboard, revision 3: sorts, bestPer and exports', () => {
  // strict: runs are rejected and edited straight in the database, and the next read must show that.
  const ctx = useTestApp({ API_REVISION: '3', READ_INDEX_FRESHNESS: 'strict' }, { fakeHub: true });
  const seeder = createSeeder(ctx, revision(3));

  const HA = { hwClass: 'DISCRETE_GPU', gpuName: 'Card A', vramGb: 24 };
  const HB = { hwClass: 'DISCRETE_GPU', gpuName: 'Card B', vramGb: 24, powerWatts: 300 };
  const HC = { hwClass: 'UNIFIED', chipVendor: 'Apple', chipFamily: 'M4', chipVariant: 'Max', unifiedMemoryGb: 64 };
  const HD = { hwClass: 'CPU_ONLY', cpu: '=SUM(A1)', ramGb: 64 };
  const cost = (price: number, currency: string) => ({
    component: 'NVIDIA GeForce RTX 4090',
    condition: 'NEW',
    yearPurchased: 2024,
    price,
    currency,
  });

  before(async () => {
    const user = await seeder.signUp('sorter');
    await seeder.seedRun('r1', user, {
      hardware: HA,
      tokSOut: 100,
      tokSPrefill: 1000,
      ttftMs: 300,
      gpuPowerWatts: [200, 50],
      hardwareCost: [cost(1000, 'USD')],
    });
    await seeder.seedRun('r2', user, { hardware: HA, tokSOut: 80, ttftMs: 100 });
    await seeder.seedRun('r3', user, { hardware: HB, tokSOut: 90, tokSPrefill: 2000, hardwareCost: [cost(500, 'EUR')] });
    // Measured watts (100) win over the declared 300.
    await seeder.seedRun('r4', user, { hardware: HB, tokSOut: 120, ttftMs: 250, gpuPowerWatts: [100] });
    await seeder.seedRun('r5', user, { hardware: HC, tokSOut: 60, ttftMs: 50, hardwareCost: [cost(200, 'USD'), cost(100, 'GBP')] });
    await seeder.seedRun('r6', user, {
      hardware: HD,
      tokSOut: 10,
      quantization: '+Q4',
      engineVersion: '-1.0',
      backend: '@cpu',
      notes: '=HYPERLINK("http://example.com")',
    });
    await seeder.seedRun('r7', user, { hardware: HC, tokSOut: 100 });
    // Best on every sort and on Card A: hidden once rejected.
    await seeder.seedRun('rej', user, {
      hardware: HA,
      tokSOut: 500,
      tokSPrefill: 99_999,
      ttftMs: 1,
      gpuPowerWatts: [1],
      hardwareCost: [cost(1, 'USD')],
    });
    await seeder.reject('rej');
  });

  const labels = async (query: Query) => boardLabels(ctx, seeder, query);

  describe('sort', () => {
    const sorts: [string, Query, string[]][] = [
      ['tokSOut, the default: highest first, the tie to the earlier run', {}, ['r4', 'r1', 'r7', 'r3', 'r2', 'r5', 'r6']],
      ['sort=tokSOut', { sort: 'tokSOut' }, ['r4', 'r1', 'r7', 'r3', 'r2', 'r5', 'r6']],
      [
        'tokSPrefill: highest first, runs without it last by createdAt',
        { sort: 'tokSPrefill' },
        ['r3', 'r1', 'r2', 'r4', 'r5', 'r6', 'r7'],
      ],
      ['ttftMs: lowest first, runs without it last', { sort: 'ttftMs' }, ['r5', 'r2', 'r4', 'r1', 'r3', 'r6', 'r7']],
      [
        'tokPerWatt: measured GPU watts, else the declared powerWatts; none last',
        { sort: 'tokPerWatt' },
        ['r4', 'r1', 'r3', 'r2', 'r5', 'r6', 'r7'],
      ],
      ['tokPerDollar: prices in USD, summed; none last', { sort: 'tokPerDollar' }, ['r5', 'r3', 'r1', 'r2', 'r4', 'r6', 'r7']],
      ['a sort with a filter', { sort: 'ttftMs', hwClass: 'DISCRETE_GPU' }, ['r2', 'r4', 'r1', 'r3']],
    ];
    for (const [name, query, expected] of sorts) {
      it(name, async () => {
        expect(await labels(query)).to.deep.equal(expected);
      });
    }

    it('pages a sort with ranks that continue', async () => {
      const body = await page(ctx, { sort: 'ttftMs', limit: '3', offset: '3' });
      expect(body).to.include({ total: 7, limit: 3, offset: 3 });
      expect(body.rows.map((row) => [seeder.labelOf(row), row.rank])).to.deep.equal([
        ['r1', 4],
        ['r3', 5],
        ['r6', 6],
      ]);
    });

    it('reports tokPerWatt and tokPerDollar on each row (null without the input)', async () => {
      const { rows } = await page(ctx);
      const byLabel = new Map(rows.map((row) => [seeder.labelOf(row), row]));
      expect(byLabel.get('r1')!.tokPerWatt).to.be.closeTo(100 / 250, 1e-9);
      expect(byLabel.get('r3')!.tokPerWatt).to.be.closeTo(90 / 300, 1e-9);
      expect(byLabel.get('r4')!.tokPerWatt).to.be.closeTo(120 / 100, 1e-9);
      expect(byLabel.get('r4')!.totalPowerWatts).to.equal(100);
      for (const label of ['r2', 'r5', 'r6', 'r7']) expect(byLabel.get(label)!.tokPerWatt, label).to.equal(null);
      expect(byLabel.get('r1')!.tokPerDollar).to.be.closeTo(100 / 1000, 1e-9);
      expect(byLabel.get('r3')!.tokPerDollar).to.be.closeTo(90 / (500 * usdPerUnit.EUR!), 1e-9);
      expect(byLabel.get('r5')!.tokPerDollar).to.be.closeTo(60 / (200 + 100 * usdPerUnit.GBP!), 1e-9);
      for (const label of ['r2', 'r4', 'r6', 'r7']) expect(byLabel.get(label)!.tokPerDollar, label).to.equal(null);
    });
  });

  describe('bestPer=hardware', () => {
    const cases: [string, Query, string[]][] = [
      ['each profile once, its fastest run (Card A: r1, not the rejected run)', { bestPer: 'hardware' }, ['r4', 'r1', 'r7', 'r6']],
      ['best by ttftMs, a profile without ttftMs last', { bestPer: 'hardware', sort: 'ttftMs' }, ['r5', 'r2', 'r4', 'r6']],
      [
        'best by tokSPrefill; a profile with none keeps its earliest run',
        { bestPer: 'hardware', sort: 'tokSPrefill' },
        ['r3', 'r1', 'r5', 'r6'],
      ],
      ['best by tokPerWatt', { bestPer: 'hardware', sort: 'tokPerWatt' }, ['r4', 'r1', 'r5', 'r6']],
      ['best by tokPerDollar', { bestPer: 'hardware', sort: 'tokPerDollar' }, ['r5', 'r3', 'r1', 'r6']],
      ['with a filter: only matching profiles', { bestPer: 'hardware', hwClass: 'DISCRETE_GPU' }, ['r4', 'r1']],
      ['with a sort and a filter', { bestPer: 'hardware', sort: 'ttftMs', hwClass: 'UNIFIED' }, ['r5']],
    ];
    for (const [name, query, expected] of cases) {
      it(name, async () => {
        expect(await labels(query)).to.deep.equal(expected);
      });
    }

    it('filters before picking the best: a profile whose fastest run is filtered out shows its next best', async () => {
      // Card B's fastest run (r4) no longer matches, so its next best (r3) stands for it; r6 ('+Q4') drops out.
      await ctx
        .db('speed_test_runs')
        .where({ id: seeder.runs.get('r4')!.id })
        .update({ quantization: 'Q8_0' });
      try {
        expect(await labels({ bestPer: 'hardware', quantization: 'Q4_K_M' })).to.deep.equal(['r1', 'r7', 'r3']);
      } finally {
        await ctx
          .db('speed_test_runs')
          .where({ id: seeder.runs.get('r4')!.id })
          .update({ quantization: 'Q4_K_M' });
      }
    });

    it('counts profiles in total and ranks on from the offset', async () => {
      const body = await page(ctx, { bestPer: 'hardware', limit: '2', offset: '1' });
      expect(body).to.include({ total: 4, limit: 2, offset: 1 });
      expect(body.rows.map((row) => [seeder.labelOf(row), row.rank])).to.deep.equal([
        ['r1', 2],
        ['r7', 3],
      ]);
    });

    it('answers rows that are whole runs', async () => {
      const { rows } = await page(ctx, { bestPer: 'hardware' });
      for (const row of rows) {
        const { rank, ...run } = row;
        expect(run).to.deep.equal(seeder.runs.get(seeder.labelOf(row)));
      }
    });
  });

  describe('exports', () => {
    it('CSV: every matching row in rank order, ignoring limit and offset', async () => {
      const { res, text } = await download(ctx, { format: 'csv', limit: '2', offset: '3' });
      expect(res.status).to.equal(200);
      expect(res.headers['content-disposition']).to.match(/^attachment; filename="leaderboard-\d{4}-\d{2}-\d{2}\.csv"$/);
      const { header, records } = csvRecords(text);
      expect(header[0]).to.equal('rank');
      expect(header).to.include.members(CSV_COLUMNS);
      expect(records.map((r) => seeder.labelOf({ id: r.id }))).to.deep.equal(['r4', 'r1', 'r7', 'r3', 'r2', 'r5', 'r6']);
      expect(records.map((r) => r.rank)).to.deep.equal(['1', '2', '3', '4', '5', '6', '7']);
      const r1 = records[1]!;
      expect(r1).to.include({
        hfId: fakeHubModels.dense,
        hwClass: 'DISCRETE_GPU',
        gpuName: 'Card A',
        engineName: 'llama.cpp',
        quantization: 'Q4_K_M',
        tokSOut: '100',
        ttftMs: '300',
        username: 'sorter',
      });
      expect(Number(r1.tokPerWatt)).to.be.closeTo(0.4, 1e-9);
      expect(r1.createdAt).to.equal(seeder.runs.get('r1')!.createdAt);
      // The verdict comes with its bound and reason, as in the JSON rows.
      const json = (await page(ctx, { limit: '200' })).rows.find((row) => row.id === r1.id)!;
      expect([r1.plausibility, r1.decodeBoundTokS, r1.plausibilityReason]).to.deep.equal([
        json.plausibility,
        json.decodeBoundTokS === null ? '' : String(json.decodeBoundTokS),
        json.plausibilityReason ?? '',
      ]);
    });

    it('CSV: follows sort, bestPer and filters', async () => {
      const sorted = csvRecords((await download(ctx, { format: 'csv', sort: 'ttftMs' })).text).records;
      expect(sorted.map((r) => seeder.labelOf({ id: r.id }))).to.deep.equal(['r5', 'r2', 'r4', 'r1', 'r3', 'r6', 'r7']);
      const best = csvRecords((await download(ctx, { format: 'csv', bestPer: 'hardware', sort: 'ttftMs' })).text).records;
      expect(best.map((r) => [seeder.labelOf({ id: r.id }), r.rank])).to.deep.equal([
        ['r5', '1'],
        ['r2', '2'],
        ['r4', '3'],
        ['r6', '4'],
      ]);
      const unified = csvRecords((await download(ctx, { format: 'csv', hwClass: 'UNIFIED' })).text).records;
      expect(unified.map((r) => seeder.labelOf({ id: r.id }))).to.deep.equal(['r7', 'r5']);
    });

    it('CSV: text cells that start with = + - @ get a leading apostrophe', async () => {
      const { records } = csvRecords((await download(ctx, { format: 'csv', hwClass: 'CPU_ONLY' })).text);
      expect(records).to.have.lengthOf(1);
      const [r6] = records;
      expect(r6).to.include({ cpu: "'=SUM(A1)", quantization: "'+Q4", engineVersion: "'-1.0", backend: "'@cpu", tokSOut: '10' });
      expect(r6!.hardware!.startsWith("'=SUM(A1)")).to.equal(true);
      // Numbers are not text: nothing to defuse.
      for (const [column, value] of Object.entries(r6!)) {
        if (/^[=+\-@]/.test(value)) expect.fail(`${column} starts with a formula character: ${value}`);
      }
    });

    it('CSV: only the header line when nothing matches', async () => {
      const { res, text } = await download(ctx, { format: 'csv', hfId: 'nobody/none' });
      expect(res.status).to.equal(200);
      expect(res.headers['content-type']).to.equal('text/csv; charset=utf-8');
      const rows = parseCsv(text);
      expect(rows).to.have.lengthOf(1);
      expect(rows[0]![0]).to.equal('rank');
    });

    it('JSON Lines: one run per line with its rank, equal to the JSON rows, text as submitted', async () => {
      const { res, text } = await download(ctx, { format: 'jsonl', limit: '1' });
      expect(res.status).to.equal(200);
      expect(res.headers['content-type']).to.equal('application/x-ndjson; charset=utf-8');
      expect(res.headers['content-disposition']).to.match(/^attachment; filename="leaderboard-\d{4}-\d{2}-\d{2}\.jsonl"$/);
      expect(text.endsWith('\n')).to.equal(true);
      const lines = text
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as Row);
      expect(lines.map((line) => line.rank)).to.deep.equal([1, 2, 3, 4, 5, 6, 7]);
      const { rows } = await page(ctx);
      expect(lines).to.deep.equal(rows);
      const r6 = lines.find((line) => seeder.labelOf(line) === 'r6')!;
      expect(r6.notes).to.equal('=HYPERLINK("http://example.com")');
      expect((r6.hardware as Body).cpu).to.equal('=SUM(A1)');
    });

    it('JSON Lines: follows bestPer and sort', async () => {
      const { text } = await download(ctx, { format: 'jsonl', bestPer: 'hardware', sort: 'tokPerWatt' });
      const lines = text
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as Row);
      expect(lines.map((line) => [seeder.labelOf(line), line.rank])).to.deep.equal([
        ['r4', 1],
        ['r1', 2],
        ['r5', 3],
        ['r6', 4],
      ]);
    });
  });
});
