/**
 * The prediction model (src/lib/prediction-model.ts) judged on real runs (issue 38): every
 * fifth run is left out, the model is fitted on the rest and predicts it. Targets on each set:
 * answered for >= 90% of the left-out runs, median absolute error <= 15%, and the 80%
 * intervals hold 70-90% of the measured figures.
 *
 * The sets (test/fixtures/real-runs, README there): LocalScore's public results (1,218 runs,
 * read and resolved as test/unit/plausibility-localscore.test.ts reads them) and the older
 * real set of runs.ts + models.ts (221 runs from many sources). Only single-stream runs count
 * (batch 1, one request in flight, no speculative decoding): the model predicts one stream.
 */
import { expect } from 'chai';
import type { HardwareForBandwidth } from '../../src/lib/hardware-lookup.ts';
import { catalogueEntryFromHub } from '../../src/lib/model-metadata.ts';
import {
  fitPredictionModel,
  isUnknown,
  memoryAvailableGb,
  predict,
  type PredictionSetup,
  setupFeatures,
  type ScoredPrediction,
  type TrackRecord,
  type TrainingRun,
  trackRecordOf,
} from '../../src/lib/prediction-model.ts';
import { normaliseHardware } from '../../src/runs/submission/normalise.ts';
import { realModels } from '../fixtures/real-runs/models.ts';
import { type RealRun, realRuns } from '../fixtures/real-runs/runs.ts';
import { hubAnswer, localScoreRuns, submittedHardware } from '../helpers/real-runs.ts';

/**
 * All of LocalScore's results as runs the model learns from (llamafile, the models by name; a
 * model's size from its card, else as the catalogue reads the name, else unknown: not answered).
 */
function localScoreTrainingRuns(): TrainingRun[] {
  return localScoreRuns({ allModels: true }).map((run) => ({
    id: `localscore-${run.testNum}`,
    tokSOut: run.tokSOut,
    setup: {
      hardware: normaliseHardware(run.hardware) as HardwareForBandwidth,
      engineName: 'llamafile',
      quantization: run.quantization,
      model: { key: run.modelName, paramsB: run.paramsB, activeParamsB: null, isMoE: false },
    },
  }));
}

const singleStream = (run: RealRun) =>
  run.batchSize === 1 && (run.engineFlags?.concurrency ?? 1) === 1 && run.engineFlags?.specDecoding !== true;

function olderSetRuns(): TrainingRun[] {
  const models = new Map(realModels.map((model) => [model.hfId, model]));
  return realRuns.filter(singleStream).map((run) => {
    const model = models.get(run.hfId)!;
    const entry = catalogueEntryFromHub(hubAnswer(model), model.hfId);
    const setup: PredictionSetup = {
      hardware: normaliseHardware(submittedHardware(run.hardware)) as HardwareForBandwidth,
      parallelism: { engineName: run.engineName, engineFlags: run.engineFlags ?? null },
      engineName: run.engineName,
      backend: run.backend ?? null,
      quantization: run.quantization,
      model: {
        key: (model.hub.baseModel?.hfId ?? model.hfId).toLowerCase(),
        paramsB: model.paramsB,
        activeParamsB: model.activeParamsB ?? entry.activeParams,
        isMoE: model.isMoE,
        nativeBitsPerWeight: entry.nativeBitsPerWeight,
      },
    };
    return { id: run.id, tokSOut: run.tokSOut, setup };
  });
}

interface Evaluation extends TrackRecord {
  size: number;
  heldOut: number;
  answered: number;
}

/**
 * Leaves out every fifth run, fits on the rest and predicts each left-out run; done for each of
 * the five offsets, so every run is predicted once by a fit that never saw it. The figures are
 * over all of them (and per offset, printed: `rotations`).
 */
function leaveEveryFifthOut(runs: TrainingRun[]): Evaluation & { rotations: TrackRecord[] } {
  const all: ScoredPrediction[] = [];
  const rotations: TrackRecord[] = [];
  for (let offset = 0; offset < 5; offset += 1) {
    const model = fitPredictionModel(runs.filter((_, i) => i % 5 !== offset));
    const scored: ScoredPrediction[] = [];
    for (const run of runs.filter((_, i) => i % 5 === offset)) {
      const prediction = predict(model, run.setup);
      if (!isUnknown(prediction)) scored.push({ ...prediction.tokSOut, measured: run.tokSOut });
    }
    rotations.push(trackRecordOf(scored));
    all.push(...scored);
  }
  return { size: runs.length, heldOut: runs.length, answered: all.length, ...trackRecordOf(all), rotations };
}

const percent = (fraction: number | null) => `${(100 * (fraction ?? Number.NaN)).toFixed(1)}%`;
const report = (name: string, e: Evaluation & { rotations: TrackRecord[] }) =>
  [
    `      ${name}: ${e.size} runs, each left out once (every fifth, five offsets): answered ${e.answered} (${percent(e.answered / e.heldOut)}), median absolute error ${percent(e.medianAbsError)}, 80% interval held ${percent(e.intervalHitRate)}`,
    ...e.rotations.map(
      (r, offset) =>
        `        offset ${offset}: ${r.count} answered, median absolute error ${percent(r.medianAbsError)}, interval held ${percent(r.intervalHitRate)}`,
    ),
  ].join('\n');

function expectTargets(e: Evaluation): void {
  expect(e.answered / e.heldOut, 'answered').to.be.at.least(0.9);
  expect(e.medianAbsError, 'median absolute error').to.be.at.most(0.15);
  expect(e.intervalHitRate, 'interval hit rate').to.be.within(0.7, 0.9);
}

describe('prediction model on real runs, every fifth left out', function () {
  this.timeout(600_000);
  let localScore: ReturnType<typeof leaveEveryFifthOut>;
  let older: ReturnType<typeof leaveEveryFifthOut>;

  before(() => {
    localScore = leaveEveryFifthOut(localScoreTrainingRuns());
    older = leaveEveryFifthOut(olderSetRuns());
    console.log(`${report('LocalScore set', localScore)}\n${report('older real set', older)}`);
  });

  it('LocalScore (all 1,218 results): answers >= 90%, median absolute error <= 15%, 80% intervals hold 70-90%', () => {
    expect(localScore.size).to.equal(1218);
    expectTargets(localScore);
  });

  it('the older real set (200+ runs): answers >= 90%, median absolute error <= 15%, 80% intervals hold 70-90%', () => {
    expect(older.size).to.be.at.least(150);
    expectTargets(older);
  });
});

describe('prediction model: answers and refusals', () => {
  const runs = localScoreTrainingRuns();
  const model = fitPredictionModel(runs);
  const rtx3090 = runs.find((run) => run.setup.hardware.gpuName === 'NVIDIA GeForce RTX 3090')!;

  it('names the unknown device, quantization or model instead of guessing', () => {
    const device = predict(model, { ...rtx3090.setup, hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'Quantum Flux 9000', vramGb: 24 } });
    expect(device).to.deep.include({ unknown: 'device' });
    const quant = predict(model, { ...rtx3090.setup, quantization: 'ZZ9' });
    expect(quant).to.deep.include({ unknown: 'quantization' });
    const moe = predict(model, { ...rtx3090.setup, model: { key: 'x/moe', paramsB: 30, activeParamsB: null, isMoE: true } });
    expect(moe).to.deep.include({ unknown: 'model' });
  });

  it('says a 70B model at F16 does not fit one 24 GB card, and an 8B at Q4_K_M does', () => {
    const big = predict(model, {
      ...rtx3090.setup,
      quantization: 'F16',
      model: { key: 'x/70b', paramsB: 70.6, activeParamsB: null, isMoE: false },
    });
    const small = predict(model, {
      ...rtx3090.setup,
      quantization: 'Q4_K_M',
      model: { key: 'x/8b', paramsB: 8.03, activeParamsB: null, isMoE: false },
    });
    if (isUnknown(big) || isUnknown(small)) throw new Error('expected answers');
    expect(big.fits).to.equal(false);
    expect(big.memoryNeededGb).to.be.above(140);
    expect(small.fits).to.equal(true);
    expect(small.memoryNeededGb).to.be.within(4, 8);
    expect(memoryAvailableGb(rtx3090.setup.hardware)).to.equal(24);
  });

  it('predicts slower decoding deeper into the context, and more memory for it', () => {
    const shallow = predict(model, rtx3090.setup);
    const deep = predict(model, rtx3090.setup, { contextDepth: 32_768 });
    if (isUnknown(shallow) || isUnknown(deep)) throw new Error('expected answers');
    expect(deep.tokSOut.estimate).to.be.below(shallow.tokSOut.estimate);
    expect(deep.memoryNeededGb).to.be.above(shallow.memoryNeededGb);
  });

  it('predicts prefill and TTFT only where runs report prefill, from the compute roofline', () => {
    expect(predict(model, rtx3090.setup, { contextDepth: 2048 })).to.not.have.nested.property('tokSPrefill.estimate');
    // Prefill at 40% of each run's compute bound (peak FP16 ÷ 2 FLOPs per active parameter).
    const withPrefill = runs.map((run) => {
      const features = setupFeatures(run.setup);
      return isUnknown(features) || features.prefillBound === null
        ? run
        : { ...run, tokSPrefill: 0.4 * features.prefillBound, promptTokens: 512 };
    });
    const prediction = predict(fitPredictionModel(withPrefill), rtx3090.setup, { contextDepth: 512 });
    if (isUnknown(prediction) || !prediction.tokSPrefill || !prediction.ttftMs) throw new Error('expected prefill and TTFT');
    const bound = prediction.features.prefillBound!;
    expect(prediction.tokSPrefill.estimate / bound).to.be.within(0.38, 0.42);
    expect(prediction.ttftMs.estimate).to.be.within((1000 * 512) / prediction.tokSPrefill.high, (1000 * 512) / prediction.tokSPrefill.low);
  });

  it('widens the interval for a device it has never seen', () => {
    const seen = predict(model, rtx3090.setup);
    const unseen = predict(model, { ...rtx3090.setup, hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA H200', vramGb: 141 } });
    if (isUnknown(seen) || isUnknown(unseen)) throw new Error('expected answers');
    const width = (p: typeof seen) => Math.log(p.tokSOut.high / p.tokSOut.low);
    expect(width(unseen)).to.be.above(width(seen));
    expect(seen.basis.similar.length).to.be.above(0);
  });
});
