/**
 * The CSV exports (leaderboard and results list) open safely in a spreadsheet, whichever
 * separator it is told to use: text submitted to look like a formula after a comma,
 * semicolon, tab or line break never becomes a formula cell (issue 12, part 7).
 */
import { expect } from 'chai';
import request from 'supertest';
import { useTestApp } from '../helpers/app.ts';
import { createSeeder, csvRecords, revision } from '../helpers/leaderboard.ts';
import { formulaCells, separatorName, SPREADSHEET_SEPARATORS } from '../helpers/spreadsheet.ts';

describe('CSV exports and spreadsheet formulas', () => {
  const ctx = useTestApp({ API_REVISION: '3' }, { fakeHub: true });
  const seeder = createSeeder(ctx, revision(3));

  // Each hostile text goes into a column the CSV carries, with what the export must write.
  const hostile = {
    gpuName: ['RTX;=1+1;', "RTX;'=1+1;"],
    engineVersion: ['-2+3', "'-2+3"],
    backend: ['cuda,=1+1', "cuda,'=1+1"],
    quantization: ['Q4\t=1+1', "Q4\t'=1+1"],
    cpu: ['@SUM(A1)', "'@SUM(A1)"],
    os: ['linux; "=HYPERLINK(""http://x"")"', 'linux; "\'=HYPERLINK(""http://x"")"'],
  } as const;
  const unifiedHostile = { chipFamily: ['M4;+1', "M4;'+1"], chipVariant: ['Max\n-1', "Max\n'-1"] } as const;

  before(async () => {
    const user = await seeder.signUp('spreadsheet');
    const text = (field: keyof typeof hostile) => hostile[field][0];
    await seeder.seedRun('gpu', user, {
      hardware: { hwClass: 'DISCRETE_GPU', gpuName: text('gpuName'), vramGb: 24, cpu: text('cpu'), os: text('os') },
      engineVersion: text('engineVersion'),
      backend: text('backend'),
      quantization: text('quantization'),
    });
    await seeder.seedRun('unified', user, {
      hardware: {
        hwClass: 'UNIFIED',
        chipVendor: 'Apple',
        chipFamily: unifiedHostile.chipFamily[0],
        chipVariant: unifiedHostile.chipVariant[0],
        unifiedMemoryGb: 64,
      },
    });
  });

  const exports = [
    ['leaderboard', '/api/leaderboard?format=csv'],
    ['results list', '/api/speed-tests?format=csv'],
  ] as const;

  /** The export read to the end as text. */
  async function download(path: string): Promise<string> {
    const res = await request(ctx.app)
      .get(path)
      .buffer(true)
      .parse((response, done) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => done(null, text));
      });
    expect(res.status).to.equal(200);
    return res.body as string;
  }

  for (const [name, path] of exports) {
    describe(`the ${name} export`, () => {
      for (const separator of SPREADSHEET_SEPARATORS) {
        it(`has no cell that opens as a formula when split on ${separatorName(separator)}`, async () => {
          const csv = await download(path);
          expect(formulaCells(csv, separator)).to.deep.equal([]);
          // The hostile texts are really there (defused), so the check above had something to find.
          expect(csv).to.include(hostile.gpuName[1]);
        });
      }

      it('quotes every text field and keeps it whole, with an apostrophe before each would-be formula; JSON Lines as submitted', async () => {
        const csv = await download(path);
        const { records } = csvRecords(csv);
        const gpu = records.find((record) => record.id === seeder.runs.get('gpu')!.id)!;
        const unified = records.find((record) => record.id === seeder.runs.get('unified')!.id)!;
        for (const [field, [, written]] of Object.entries(hostile)) expect(gpu[field], field).to.equal(written);
        expect(gpu.hardware).to.equal(`${hostile.gpuName[1]} · 24 GB`);
        expect(unified.chip).to.equal(`Apple ${unifiedHostile.chipFamily[1]} ${unifiedHostile.chipVariant[1]}`);
        // Text quoted (the id is), numbers not.
        expect(csv).to.include(`"${gpu.id}"`);
        expect(csv).to.match(new RegExp(`,${gpu.tokSOut},`));
        const lines = (await download(path.replace('format=csv', 'format=jsonl')))
          .trimEnd()
          .split('\n')
          .map((line) => JSON.parse(line));
        const submitted = lines.find((line) => line.id === gpu.id);
        expect(submitted.hardware.gpuName).to.equal(hostile.gpuName[0]);
        expect(submitted.engineVersion).to.equal(hostile.engineVersion[0]);
      });

      it("streams without Node's listener-leak warning (a piped response carries many 'close' listeners)", async () => {
        const warnings: string[] = [];
        const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
        process.on('warning', onWarning);
        try {
          await download(path);
          await download(path.replace('format=csv', 'format=jsonl'));
          // Warnings are emitted on a later tick.
          await new Promise((resolve) => setImmediate(resolve));
        } finally {
          process.off('warning', onWarning);
        }
        expect(warnings.filter((warning) => warning.startsWith('MaxListenersExceededWarning'))).to.deep.equal([]);
      });
    });
  }
});
