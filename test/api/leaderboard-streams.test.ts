/**
 * Like-for-like ranking (DECISIONS.md "Buckets"): revision 3 buckets the leaderboard's
 * `batchSize` on aggregate active sequences, batchSize x concurrency (numParallel when
 * concurrency is absent), so an honest batch-1 run with eight requests in flight ranks with
 * the throughput runs, not among single-stream ones; revision 2 buckets on batchSize alone.
 * Through the read index and through the SQL path (READ_INDEX=off), with exact totals.
 */
import { expect } from 'chai';
import { useTestApp } from '../helpers/app.ts';
import { boardLabels, createSeeder, REVISIONS } from '../helpers/leaderboard.ts';

const SNIPPET = 'vllm serve fakeorg/Dense-7B';

for (const rev of REVISIONS.filter((r) => r.extendedFilters)) {
  for (const readIndex of ['on', 'off']) {
    describe(`GET /api/leaderboard?batchSize, revision ${rev.revision}, READ_INDEX=${readIndex}`, () => {
      const ctx = useTestApp({ API_REVISION: String(rev.revision), READ_INDEX: readIndex }, { fakeHub: true });
      const seeder = createSeeder(ctx, rev, { ttftMs: 200, engineName: 'vllm' });
      const onSequences = rev.revision >= 3;

      before(async () => {
        const ada = await seeder.signUp('ada');
        await seeder.seedRun('single', ada, { tokSOut: 40 });
        await seeder.seedRun('conc8', ada, { tokSOut: 410, engineFlags: { concurrency: 8, commandSnippet: SNIPPET } });
        await seeder.seedRun('np4', ada, { tokSOut: 300, batchSize: 2, engineFlags: { numParallel: 4, commandSnippet: SNIPPET } });
        await seeder.seedRun('b8', ada, { tokSOut: 900, batchSize: 8 });
        await seeder.seedRun('conc1', ada, { tokSOut: 45, engineFlags: { concurrency: 1, commandSnippet: SNIPPET } });
      });

      it(
        onSequences ? 'batchSize=1 holds only single-stream runs' : 'batchSize=1 holds every batch-1 run, whatever its concurrency',
        async () => {
          expect(await boardLabels(ctx, seeder, { batchSize: '1' })).to.deep.equal(
            onSequences ? ['conc1', 'single'] : ['conc8', 'conc1', 'single'],
          );
        },
      );

      it(
        onSequences ? 'batchSize=8 holds batch 8, batch 1 x concurrency 8 and batch 2 x numParallel 4' : 'batchSize=8 holds batch 8 only',
        async () => {
          expect(await boardLabels(ctx, seeder, { batchSize: '8' })).to.deep.equal(onSequences ? ['b8', 'conc8', 'np4'] : ['b8']);
        },
      );

      it('batchSize=2 follows the same rule', async () => {
        expect(await boardLabels(ctx, seeder, { batchSize: '2' })).to.deep.equal(onSequences ? [] : ['np4']);
      });
    });
  }
}
