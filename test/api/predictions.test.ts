import { expect } from 'chai';
import request from 'supertest';
import { getRevisionProfile } from '../../src/revisions.ts';
import { createOfflineServices } from '../../src/services/index.ts';
import { useTestApp } from '../helpers/app.ts';
import { fakeHubModels } from '../helpers/fake-hub.ts';
import { useSubmitter } from '../helpers/submitter.ts';

const rtx = (gpuName: string, vramGb: number) => ({ hwClass: 'DISCRETE_GPU', gpuName, vramGb });

describe('GET /api/predictions', () => {
  const ctx = useTestApp({}, { fakeHub: true });
  const submitter = useSubmitter(ctx);
  const predict = (query: Record<string, string>) => request(ctx.app).get('/api/predictions').query(query);
  const taught: string[] = [];
  let suspect = '';

  before(async () => {
    // fakeHubModels.dense: 7.24 B parameters; Q4_K_M reads about 4.3 GB a token.
    for (const [hardware, tokSOut] of [
      [rtx('NVIDIA GeForce RTX 4090', 24), 150],
      [rtx('NVIDIA GeForce RTX 4090', 24), 155],
      [rtx('NVIDIA GeForce RTX 3090', 24), 120],
      [rtx('NVIDIA GeForce RTX 3060', 12), 58],
      [{ hwClass: 'UNIFIED', chipVendor: 'Apple', chipFamily: 'M2', chipVariant: 'Max', unifiedMemoryGb: 64 }, 52],
      [{ hwClass: 'CPU_ONLY', cpu: 'AMD Ryzen 9 7950X', ramGb: 64 }, 11],
    ] as const) {
      const run = await submitter.submit({ hardware, tokSOut });
      expect(run.plausibility).to.equal('plausible');
      taught.push(run.id);
    }
    // Above the bound: suspect, so it teaches the model nothing.
    suspect = (await submitter.submit({ hardware: rtx('NVIDIA GeForce RTX 4090', 24), tokSOut: 400 })).id;
  });

  it('predicts a measured setup near its runs, says it is a prediction, and names the runs it leaned on', async () => {
    const res = await predict({ hfId: fakeHubModels.dense, quantization: 'Q4_K_M', hardwareName: 'RTX 4090' });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const { prediction, setup, basis, trackRecord } = res.body;
    expect(prediction.kind).to.equal('prediction');
    expect(prediction.tokSOut.level).to.equal(0.8);
    expect(prediction.tokSOut.estimate).to.be.within(110, 200);
    expect(prediction.tokSOut.low).to.be.below(prediction.tokSOut.estimate);
    expect(prediction.tokSOut.high).to.be.above(prediction.tokSOut.estimate);
    expect(prediction.fits).to.equal(true);
    expect(prediction.memoryNeededGb).to.be.within(4, 7);
    expect(setup.device).to.deep.include({ slug: 'nvidia-rtx-4090', hwClass: 'DISCRETE_GPU', cards: 1 });
    expect(setup.decodeBoundTokS).to.be.within(225, 240);
    expect(basis.runs).to.equal(taught.length);
    expect(basis.similar).to.include.members(taught.slice(0, 2));
    expect(basis.similar).to.not.include(suspect);
    expect(basis.method).to.match(/^Roofline/);
    expect(trackRecord).to.have.keys('count', 'medianAbsError', 'intervalHitRate');
  });

  it('reads the model as the model box does and the device as the resolver does (hwClass and fields too)', async () => {
    const words = await predict({
      hfId: 'dense 7b',
      quantization: 'q4_k_m',
      hwClass: 'UNIFIED',
      chipVendor: 'Apple',
      chipFamily: 'M2',
      chipVariant: 'Max',
    });
    expect(words.status, JSON.stringify(words.body)).to.equal(200);
    expect(words.body.setup.model.hfId).to.equal(fakeHubModels.dense);
    expect(words.body.setup.device.hwClass).to.equal('UNIFIED');
    // Sold with 32 to 96 GB: a 4 GB model fits any of them.
    expect(words.body.prediction.fits).to.equal(true);
  });

  it('answers a device nobody measured, with a wider interval, and prefill/TTFT only where runs allow', async () => {
    const seen = await predict({ hfId: fakeHubModels.dense, quantization: 'Q4_K_M', hardwareName: 'RTX 4090' });
    const unseen = await predict({ hfId: fakeHubModels.dense, quantization: 'Q4_K_M', hardwareName: 'RTX 4080', contextDepth: '4096' });
    expect(unseen.status, JSON.stringify(unseen.body)).to.equal(200);
    const width = (body: { prediction: { tokSOut: { low: number; high: number } } }) =>
      body.prediction.tokSOut.high / body.prediction.tokSOut.low;
    expect(width(unseen.body)).to.be.above(width(seen.body));
    expect(unseen.body.setup.contextDepth).to.equal(4096);
    expect(unseen.body.prediction).to.not.have.property('ttftMs');
  });

  it('says it does not fit: F16 weights over a 12 GB card, and a deep context times many sequences', async () => {
    const f16 = await predict({ hfId: fakeHubModels.dense, quantization: 'F16', hardwareName: 'RTX 3060', vramGb: '12' });
    expect(f16.status, JSON.stringify(f16.body)).to.equal(200);
    expect(f16.body.prediction.fits).to.equal(false);
    expect(f16.body.prediction.memoryNeededGb).to.be.above(12);
    const deep = await predict({
      hfId: fakeHubModels.dense,
      quantization: 'Q4_K_M',
      hardwareName: 'RTX 4090',
      contextDepth: '131072',
      concurrency: '8',
    });
    expect(deep.body.prediction.fits).to.equal(false);
    expect(deep.body.setup.concurrency).to.equal(8);
  });

  it('answers 422 naming an unknown device or model, and 400 without a device', async () => {
    const device = await predict({ hfId: fakeHubModels.dense, quantization: 'Q4_K_M', hardwareName: 'Quantum Flux 9000' });
    expect(device.status).to.equal(422);
    expect(device.body).to.deep.equal({
      error: "Unknown device 'Quantum Flux 9000': no device in the hardware catalogue matches it, so its memory bandwidth is not known",
      unknown: 'device',
    });
    const fields = await predict({ hfId: fakeHubModels.dense, quantization: 'Q4_K_M', hwClass: 'DISCRETE_GPU', gpuName: 'Homebrew 9000' });
    expect(fields.status).to.equal(422);
    expect(fields.body.unknown).to.equal('device');
    const model = await predict({ hfId: 'nobody/never-heard-of-it-zzz', quantization: 'Q4_K_M', hardwareName: 'RTX 4090' });
    expect(model.status).to.equal(422);
    expect(model.body.unknown).to.equal('model');
    const quant = await predict({ hfId: fakeHubModels.dense, quantization: 'ZZ9', hardwareName: 'RTX 4090' });
    expect(quant.status).to.equal(422);
    expect(quant.body.unknown).to.equal('quantization');
    const none = await predict({ hfId: fakeHubModels.dense, quantization: 'Q4_K_M' });
    expect(none.status).to.equal(400);
    expect(none.body.details.fieldErrors.hardwareName).to.have.length(1);
  });

  it('keeps score: a run measured after a prediction of its setup enters the track record', async () => {
    const asked = await predict({
      hfId: fakeHubModels.dense,
      quantization: 'Q4_K_M',
      hardwareName: 'NVIDIA GeForce RTX 4070',
      gpuCount: '1',
    });
    expect(asked.status).to.equal(200);
    const before = asked.body.trackRecord.count;
    const measured = 70;
    await submitter.submit({ hardware: rtx('NVIDIA GeForce RTX 4070', 12), tokSOut: measured });
    // Any instance's refresh scores new runs (the app's own runs in the background after a request).
    await createOfflineServices(ctx.db, getRevisionProfile(3), ctx.clock).predictions.refresh();
    const rows = await ctx.db('speed_test_prediction_scores').select('estimate', 'measured');
    expect(rows).to.have.length(before + 1);
    expect(Number(rows.at(-1)!.estimate)).to.equal(asked.body.prediction.tokSOut.estimate);
    const again = await predict({ hfId: fakeHubModels.dense, quantization: 'Q4_K_M', hardwareName: 'RTX 4090' });
    expect(again.body.trackRecord.count).to.equal(before + 1);
    expect(again.body.trackRecord.medianAbsError).to.be.a('number');
    // A prediction is never a run: the leaderboard lists only the submitted runs.
    const board = await request(ctx.app).get('/api/leaderboard').query({ hfId: fakeHubModels.dense, limit: '100' });
    expect(board.status).to.equal(200);
    expect(JSON.stringify(board.body)).to.not.include('prediction');
  });
});
