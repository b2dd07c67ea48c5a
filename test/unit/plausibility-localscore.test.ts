/**
 * The roofline and the hardware resolver judged on LocalScore's public results, devices
 * exactly as LocalScore wrote them (issue 33, part 6): unknown rate, false alarms and
 * doubled runs flagged by the bound alone.
 *
 * The set is test/fixtures/real-runs/localscore.tsv (its README says where it comes from):
 * LocalScore's public leaderboard results, one row per result with the columns this test
 * reads, rows unchanged. Each run's source is that file's `test_num`.
 *
 * A LocalScore result is one accelerator: an Apple GPU is the unified chip, another GPU the
 * discrete card (with the system CPU), a CPU result the CPU alone; the models are the three
 * LocalScore benchmarks at Q4_K_M plus Llama 3.2 3B. Targets: unknown <= 5%, no false alarm.
 */
import { expect } from 'chai';
import type { RooflineVerdict } from '../../src/lib/roofline.ts';
import { localScoreRuns, SOURCE, verdict, type LocalScoreRun } from '../helpers/real-runs.ts';

describe('plausibility on LocalScore public results, devices as written', function () {
  this.timeout(60_000);
  let runs: LocalScoreRun[] = [];
  let judged: { run: LocalScoreRun; at1x: RooflineVerdict; at2x: RooflineVerdict }[] = [];

  before(() => {
    runs = localScoreRuns();
    judged = runs.map((run) => ({ run, at1x: verdict(run, 1), at2x: verdict(run, 2) }));
    const unknown = judged.filter((j) => j.at1x.plausibility === 'unknown');
    const byDevice = new Map<string, number>();
    for (const j of unknown) byDevice.set(j.run.device, (byDevice.get(j.run.device) ?? 0) + 1);
    const doubled = judged.filter((j) => j.at2x.plausibility === 'suspect').length;
    console.log(
      [
        `      LocalScore set: ${runs.length} runs (${SOURCE})`,
        `      unknown: ${unknown.length} = ${((100 * unknown.length) / runs.length).toFixed(1)}%: ${[...byDevice].map(([device, n]) => `${n} × "${device}"`).join('; ')}`,
        `      false alarms: ${judged.filter((j) => j.at1x.plausibility === 'suspect').length}`,
        `      flagged when doubled (the bound alone): ${doubled} = ${((100 * doubled) / runs.length).toFixed(1)}%`,
      ].join('\n'),
    );
  });

  it('holds 1,000+ runs, each with its source row', () => {
    expect(runs.length).to.be.at.least(1000);
    expect(new Set(runs.map((run) => run.testNum)).size).to.equal(runs.length);
  });

  it('raises no false alarm', () => {
    expect(
      judged.filter((j) => j.at1x.plausibility === 'suspect').map((j) => `${j.run.testNum} ${j.run.device}: ${j.at1x.reason}`),
    ).to.deep.equal([]);
  });

  it('leaves at most 5% unknown', () => {
    expect(judged.filter((j) => j.at1x.plausibility === 'unknown').length / runs.length).to.be.at.most(0.05);
  });
});
