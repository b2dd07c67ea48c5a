/**
 * GET /api/leaderboard in each API revision: the page, the filters every revision shares,
 * the revision-2 filters (or their absence), parameter validation and the exports, over
 * a small seed of five runs.
 */
import { expect } from 'chai';
import request from 'supertest';
import { useTestApp } from '../helpers/app.ts';
import { fakeHubModels } from '../helpers/fake-hub.ts';
import { expectValidationFailed } from '../helpers/assertions.ts';
import {
  atTime,
  board,
  boardLabels,
  createSeeder,
  csvRecords,
  CSV_COLUMNS,
  DAY,
  download,
  filterCases,
  page,
  REVISIONS,
  type Query,
} from '../helpers/leaderboard.ts';

/** A valid value of each revision-2 parameter (revision 1 must call each one unknown). */
const EXTENDED_PARAMS: Query = {
  hardwareName: 'rtx',
  paramSize: '7',
  os: 'linux',
  backend: 'cuda',
  modelFamily: 'llama',
  isMoE: 'false',
  batchSize: '1',
  contextLen: '2048',
};

const HW_4090 = { hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA GeForce RTX 4090', vramGb: 24, os: 'Ubuntu 24.04' };
const HW_M3_MAX = { hwClass: 'UNIFIED', chipVendor: 'Apple', chipFamily: 'M3', chipVariant: 'Max', unifiedMemoryGb: 128, os: 'macOS 15' };
const HW_XEON = { hwClass: 'CPU_ONLY', cpu: 'Intel Xeon w9-3495X', ramGb: 64, os: 'Windows 11' };

for (const rev of REVISIONS) {
  describe(`GET /api/leaderboard, revision ${rev.revision}`, () => {
    // strict: a run is rejected straight in the database (seeder.reject), and the next read must not show it.
    const ctx = useTestApp({ API_REVISION: String(rev.revision), READ_INDEX_FRESHNESS: 'strict' }, { fakeHub: true });
    const seeder = createSeeder(ctx, rev, { ttftMs: 200 });

    before(async () => {
      const ada = await seeder.signUp('ada', { verified: true });
      const bob = await seeder.signUp('bob');
      await seeder.seedRun('s1', ada, { hardware: HW_4090, backend: 'cuda', tokSOut: 50 });
      await seeder.seedRun('s2', bob, {
        hfId: fakeHubModels.moeByArchitecture,
        hardware: HW_M3_MAX,
        engineName: 'mlx',
        backend: 'metal',
        contextLength: 4096,
        tokSOut: 40,
      });
      await seeder.seedRun('s3', bob, { hfId: fakeHubModels.finetune, hardware: HW_XEON, quantization: 'Q8_0', batchSize: 8, tokSOut: 30 });
      await seeder.seedRun('s4', ada, { hardware: HW_4090, tokSOut: 999 });
      // Same tokSOut as s1, submitted later: ranks right after it.
      await seeder.seedRun('s5', bob, { hardware: HW_4090, tokSOut: 50 });
      await seeder.reject('s4');
    });

    describe('the page', () => {
      it('answers { rows, total, limit, offset }: approved runs by tokSOut, default limit 50, offset 0', async () => {
        const body = await page(ctx);
        expect(body).to.include({ total: 4, limit: 50, offset: 0 });
        // Sent as bytes: the type still names the charset, as it did for a text.
        expect((await request(ctx.app).get('/api/leaderboard').expect(200)).headers['content-type']).to.equal(
          'application/json; charset=utf-8',
        );
        expect(body.rows.map((row) => seeder.labelOf(row))).to.deep.equal(['s1', 's5', 's2', 's3']);
      });

      it('gives each row the stored run as submitted, plus its rank', async () => {
        const { rows } = await page(ctx);
        for (const row of rows) {
          // A run's replications follow runs submitted after it (s5 replicates s1): they are the run's as it is now.
          const { rank, replications, ...run } = row;
          const { replications: _atSubmission, ...submitted } = seeder.runs.get(seeder.labelOf(row))!;
          expect(run, seeder.labelOf(row)).to.deep.equal(submitted);
          const now = (await request(ctx.app).get(`${rev.resultsPath}/${row.id}`).expect(200)).body;
          expect(replications, seeder.labelOf(row)).to.deep.equal(now.replications);
          expect(row).to.include.keys(
            'id',
            'model',
            'hardware',
            'engine',
            'engineFlags',
            'user',
            'tokSOut',
            'tokSTotal',
            'ttftMs',
            'peakVramGb',
            'tokPerWatt',
            'tokPerDollar',
            'createdAt',
            'status',
          );
          expect(row.reactionCounts).to.deep.equal({});
          expect(row.myEmoji).to.equal(null);
          expect(row.status).to.equal('APPROVED');
          // tokSPrefill is a revision-2 field.
          if (rev.revision === 1) expect(row).not.to.have.property('tokSPrefill');
          else expect(row).to.have.property('tokSPrefill', null);
        }
        const s2 = rows.find((row) => seeder.labelOf(row) === 's2')!;
        expect(s2.model).to.include({ hfId: fakeHubModels.moeByArchitecture, family: 'mixtral', isMoE: true });
        expect(s2.hardware).to.include({ hwClass: 'UNIFIED', chipFamily: 'M3', unifiedMemoryGb: 128 });
        expect(s2.engine).to.include({ name: 'mlx' });
        expect(s2.user).to.include({ username: 'bob', verified: false });
      });

      it('ranks on from the offset, with the exact total on every page', async () => {
        const second = await page(ctx, { limit: '2', offset: '1' });
        expect(second).to.include({ total: 4, limit: 2, offset: 1 });
        expect(second.rows.map((row) => [seeder.labelOf(row), row.rank])).to.deep.equal([
          ['s5', 2],
          ['s2', 3],
        ]);
        const beyond = await page(ctx, { offset: '10' });
        expect(beyond).to.include({ total: 4, offset: 10 });
        expect(beyond.rows).to.deep.equal([]);
      });

      it('accepts limit 1 to 200', async () => {
        expect((await page(ctx, { limit: '1' })).rows).to.have.lengthOf(1);
        expect(await page(ctx, { limit: '200' })).to.include({ limit: 200, total: 4 });
      });

      it('never shows a REJECTED run, even when every filter matches it', async () => {
        const query = { hfId: fakeHubModels.dense, hwClass: 'DISCRETE_GPU', memTier: '24', verified: 'true' };
        expect(await boardLabels(ctx, seeder, query)).to.deep.equal(['s1']);
      });

      it('accepts sort, bestPer and format=json in this revision too', async () => {
        for (const sort of ['tokSOut', 'tokSPrefill', 'ttftMs', 'tokPerWatt', 'tokPerDollar']) {
          expect((await page(ctx, { sort })).total, sort).to.equal(4);
        }
        // s1 and s5 share one hardware profile.
        expect(await boardLabels(ctx, seeder, { bestPer: 'hardware' })).to.deep.equal(['s1', 's2', 's3']);
        expect(await boardLabels(ctx, seeder, { format: 'json' })).to.deep.equal(['s1', 's5', 's2', 's3']);
      });
    });

    describe('filters shared by all revisions', () => {
      filterCases(ctx, seeder, [
        ['hfId: that model only, not its finetunes', { hfId: fakeHubModels.dense }, ['s1', 's5']],
        ['hfId, case-insensitively', { hfId: 'FAKEORG/dense-7B' }, ['s1', 's5']],
        ['hfId of a finetune', { hfId: fakeHubModels.finetune }, ['s3']],
        ['hfId of an unknown model', { hfId: 'nobody/none' }, []],
        ['hwClass DISCRETE_GPU', { hwClass: 'DISCRETE_GPU' }, ['s1', 's5']],
        ['hwClass UNIFIED', { hwClass: 'UNIFIED' }, ['s2']],
        ['hwClass CPU_ONLY', { hwClass: 'CPU_ONLY' }, ['s3']],
        ['memTier 24: a 24 GB card', { memTier: '24' }, ['s1', 's5']],
        ['memTier 128: 128 GB unified memory', { memTier: '128' }, ['s2']],
        ['memTier 80: 64 GB of system RAM', { memTier: '80' }, ['s3']],
        ['memTier 8: nothing that small', { memTier: '8' }, []],
        ['engineName', { engineName: 'mlx' }, ['s2']],
        ['engineName llama.cpp', { engineName: 'llama.cpp' }, ['s1', 's5', 's3']],
        ['quantization, exactly', { quantization: 'Q8_0' }, ['s3']],
        ['quantization is case-sensitive', { quantization: 'q8_0' }, []],
        ['quantization is not a substring match', { quantization: 'Q4' }, []],
        ['verified=true', { verified: 'true' }, ['s1']],
        ['verified=false', { verified: 'false' }, ['s5', 's2', 's3']],
        ['two filters together', { hwClass: 'DISCRETE_GPU', verified: 'false' }, ['s5']],
      ]);

      it('since=7d and since=30d count back from the clock on createdAt, to the millisecond', async () => {
        const all = ['s1', 's5', 's2', 's3'];
        const first = seeder.createdAt('s1');
        const last = seeder.createdAt('s5');
        const at = (ms: number, query: Query) => atTime(ctx, ms, () => boardLabels(ctx, seeder, query));
        expect(await at(first + 7 * DAY - 1, { since: '7d' })).to.deep.equal(all);
        expect(await at(first + 7 * DAY + 1, { since: '7d' })).to.deep.equal(['s5', 's2', 's3']);
        expect(await at(last + 7 * DAY + 1, { since: '7d' })).to.deep.equal([]);
        expect(await at(last + 7 * DAY + 1, { since: '30d' })).to.deep.equal(all);
        expect(await at(first + 30 * DAY - 1, { since: '30d' })).to.deep.equal(all);
        expect(await at(first + 30 * DAY + 1, { since: '30d' })).to.deep.equal(['s5', 's2', 's3']);
        expect(await at(last + 30 * DAY + 1, { since: '30d' })).to.deep.equal([]);
        // Without since: all time.
        expect(await at(last + 365 * DAY, {})).to.deep.equal(all);
      });
    });

    if (rev.extendedFilters) {
      describe('revision-2 filters', () => {
        filterCases(ctx, seeder, [
          ['hardwareName: chip family, any case', { hardwareName: 'm3' }, ['s2']],
          ['hardwareName: CPU name', { hardwareName: 'XEON' }, ['s3']],
          ['hardwareName: part of a GPU name', { hardwareName: '4090' }, ['s1', 's5']],
          ['os linux, from "Ubuntu 24.04"', { os: 'linux' }, ['s1', 's5']],
          ['os macos, from "macOS 15"', { os: 'macos' }, ['s2']],
          ['os windows, from "Windows 11"', { os: 'windows' }, ['s3']],
          ['paramSize 7: 7.24 B, finetune included through its own params', { paramSize: '7' }, ['s1', 's5', 's3']],
          ['paramSize 30: 46.7 B', { paramSize: '30' }, ['s2']],
          ['paramSize 1', { paramSize: '1' }, []],
          ['backend, exactly', { backend: 'metal' }, ['s2']],
          ['backend cuda', { backend: 'cuda' }, ['s1']],
          ['modelFamily, any case', { modelFamily: 'LLAMA' }, ['s1', 's5', 's3']],
          ['modelFamily mixtral', { modelFamily: 'mixtral' }, ['s2']],
          ['isMoE=true', { isMoE: 'true' }, ['s2']],
          ['isMoE=false', { isMoE: 'false' }, ['s1', 's5', 's3']],
          ['batchSize 8 (8 or more)', { batchSize: '8' }, ['s3']],
          ['batchSize 1 (the default)', { batchSize: '1' }, ['s1', 's5', 's2']],
          ['contextLen 4096', { contextLen: '4096' }, ['s2']],
          ['contextLen 2048 (the default context length)', { contextLen: '2048' }, ['s1', 's5', 's3']],
        ]);
      });
    } else {
      it('calls each revision-2 parameter unknown (400)', async () => {
        for (const [param, value] of Object.entries(EXTENDED_PARAMS)) {
          const res = await board(ctx, { [param]: value });
          expectValidationFailed(res, [param]);
          expect(res.body.details.fieldErrors[param], param).to.deep.equal(['Unknown field']);
        }
      });
    }

    describe('validation', () => {
      const badValues: [string, string][] = [
        ['hfId', ''],
        ['hfId', `org/${'x'.repeat(253)}`],
        ['hwClass', 'GPU'],
        ['hwClass', 'unified'],
        ['memTier', '10'],
        ['memTier', '0'],
        ['memTier', '256'],
        ['memTier', '24GB'],
        ['engineName', 'LLAMA.CPP'],
        ['engineName', 'no-such-engine'],
        ...(rev.revision === 1 ? [] : [['engineName', 'candle'] as [string, string]]),
        ...(rev.revision === 3 ? [] : [['engineName', 'ember'] as [string, string]]),
        ['quantization', ''],
        ['quantization', 'q'.repeat(65)],
        ['verified', 'yes'],
        ['verified', '1'],
        ['since', '1d'],
        ['since', '90d'],
        ['since', '7'],
        ['limit', '0'],
        ['limit', '201'],
        ['limit', '-1'],
        ['limit', 'abc'],
        ['limit', '2.5'],
        ['limit', ''],
        ['offset', '-1'],
        ['offset', 'x'],
        ['offset', '1.5'],
        ['sort', 'speed'],
        ['sort', 'tokSOut desc'],
        ['bestPer', 'model'],
        ['bestPer', ''],
        ['format', 'xml'],
        ...((rev.extendedFilters
          ? [
              ['hardwareName', ''],
              ['paramSize', '2'],
              ['paramSize', '0'],
              ['paramSize', 'big'],
              ['os', 'android'],
              ['os', 'ubuntu'],
              ['backend', ''],
              ['modelFamily', ''],
              ['isMoE', 'yes'],
              ['batchSize', '0'],
              ['batchSize', '9'],
              ['batchSize', '1.5'],
              ['batchSize', 'x'],
              ['contextLen', '2049'],
              ['contextLen', '1024'],
              ['contextLen', '262144'],
            ]
          : []) as [string, string][]),
      ];
      for (const [param, value] of badValues) {
        it(`answers 400 naming ${param} for ${param}=${JSON.stringify(value.length > 20 ? `${value.slice(0, 12)}…(${value.length})` : value)}`, async () => {
          expectValidationFailed(await board(ctx, { [param]: value }), [param]);
        });
      }

      it('accepts the engine names of this revision only', async () => {
        expect((await board(ctx, { engineName: 'candle' })).status).to.equal(rev.revision === 1 ? 200 : 400);
        expect((await board(ctx, { engineName: 'ember' })).status).to.equal(rev.revision === 3 ? 200 : 400);
      });

      if (rev.extendedFilters) {
        it('accepts every revision-2 parameter', async () => {
          for (const [param, value] of Object.entries(EXTENDED_PARAMS)) {
            const res = await board(ctx, { [param]: value });
            expect(res.status, `${param}: ${JSON.stringify(res.body)}`).to.equal(200);
          }
        });
      }

      it('answers 400 naming each unknown parameter', async () => {
        expectValidationFailed(await board(ctx, { foo: '1' }), ['foo']);
        expectValidationFailed(await board(ctx, { hfid: fakeHubModels.dense, page: '2', memTier: '24' }), ['hfid', 'page']);
        expectValidationFailed(await board(ctx, { sortBy: 'ttftMs', format: 'csv' }), ['sortBy']);
      });

      const repeated: [string, string][] = [
        ['memTier=8&memTier=12', 'memTier'],
        ['memTier=24&memTier=24', 'memTier'],
        ['hfId=fakeorg/Dense-7B&hfId=fakeorg/Gated-13B', 'hfId'],
        ['verified=true&verified=false', 'verified'],
        ['limit=5&limit=6', 'limit'],
        ['offset=0&offset=1', 'offset'],
        ['sort=tokSOut&sort=ttftMs', 'sort'],
        ['format=csv&format=csv', 'format'],
        ...((rev.extendedFilters
          ? [
              ['os=linux&os=macos', 'os'],
              ['hardwareName=a&hardwareName=b', 'hardwareName'],
            ]
          : []) as [string, string][]),
      ];
      for (const [query, param] of repeated) {
        it(`answers 400 naming ${param} when it is given twice (${query})`, async () => {
          const res = await board(ctx, query);
          expectValidationFailed(res, [param]);
          expect(res.headers['content-disposition']).to.equal(undefined);
        });
      }
    });

    describe('exports', () => {
      it('downloads CSV named after the clock date, every row whatever limit and offset say', async () => {
        const { res, text } = await atTime(ctx, '2030-02-03T23:59:59.999Z', () =>
          download(ctx, { format: 'csv', limit: '1', offset: '2' }),
        );
        expect(res.status).to.equal(200);
        expect(res.headers['content-type']).to.equal('text/csv; charset=utf-8');
        expect(res.headers['content-disposition']).to.equal('attachment; filename="leaderboard-2030-02-03.csv"');
        const { header, records } = csvRecords(text);
        expect(header).to.include.members(CSV_COLUMNS);
        expect(records.map((r) => [r.rank, seeder.labelOf({ id: r.id })])).to.deep.equal([
          ['1', 's1'],
          ['2', 's5'],
          ['3', 's2'],
          ['4', 's3'],
        ]);
      });

      it('downloads JSON Lines named after the clock date', async () => {
        const { res, text } = await atTime(ctx, '2031-12-31T00:00:00.000Z', () => download(ctx, { format: 'jsonl' }));
        expect(res.status).to.equal(200);
        expect(res.headers['content-type']).to.equal('application/x-ndjson; charset=utf-8');
        expect(res.headers['content-disposition']).to.equal('attachment; filename="leaderboard-2031-12-31.jsonl"');
        const lines = text.split('\n');
        expect(lines.pop()).to.equal('');
        expect(lines.map((line) => seeder.labelOf(JSON.parse(line)))).to.deep.equal(['s1', 's5', 's2', 's3']);
      });

      it('sends the CSV header line alone, and an empty JSON Lines body, when nothing matches', async () => {
        const csv = await download(ctx, { format: 'csv', hfId: 'nobody/none' });
        expect(csv.res.status).to.equal(200);
        expect(csv.text.endsWith('\n')).to.equal(true);
        const lines = csv.text.split('\n').filter(Boolean);
        expect(lines).to.have.lengthOf(1);
        expect(csvRecords(csv.text).header).to.include.members(CSV_COLUMNS);
        const jsonl = await download(ctx, { format: 'jsonl', hfId: 'nobody/none' });
        expect(jsonl.res.status).to.equal(200);
        expect(jsonl.text).to.equal('');
      });

      it('validates the parameters of an export like a page', async () => {
        const res = await board(ctx, { format: 'csv', memTier: '10' });
        expectValidationFailed(res, ['memTier']);
        expect(res.headers['content-disposition']).to.equal(undefined);
      });
    });
  });
}
