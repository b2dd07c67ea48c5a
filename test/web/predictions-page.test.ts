import { expect } from 'chai';
import request from 'supertest';
import { formatNumber } from '../../src/lib/labels.ts';
import { useTestApp } from '../helpers/app.ts';
import { fakeHubModels } from '../helpers/fake-hub.ts';
import { useSubmitter } from '../helpers/submitter.ts';

describe('the "Will it run?" page (/predict)', () => {
  const ctx = useTestApp({}, { fakeHub: true });
  const submitter = useSubmitter(ctx);
  let runId = '';

  before(async () => {
    runId = (await submitter.submit({ tokSOut: 150 })).id;
  });

  const page = (query: Record<string, string>) => request(ctx.app).get('/predict').query(query);

  it('shows the form and the track record without a question', async () => {
    const res = await page({});
    expect(res.status).to.equal(200);
    expect(res.text).to.include('id="prediction-form"');
    expect(res.text).to.include('id="track-record"');
    expect(res.text).to.not.include('id="prediction"');
  });

  it('answers with the same prediction as the API, says it is an estimate, and links the runs it leaned on', async () => {
    const query = { hfId: fakeHubModels.dense, quantization: 'Q4_K_M', hardwareName: 'RTX 4090' };
    const res = await page(query);
    expect(res.status).to.equal(200);
    const api = await request(ctx.app).get('/api/predictions').query(query);
    const { estimate, low, high } = api.body.prediction.tokSOut;
    expect(res.text).to.include('estimate, not a run');
    expect(res.text).to.include(
      `${formatNumber(estimate, 1)} tok/s</strong> <span class="muted">(80% interval ${formatNumber(low, 1)}–${formatNumber(high, 1)})`,
    );
    expect(res.text).to.include(`href="/runs/${runId}"`);
    expect(res.text).to.include('href="/hardware/nvidia-rtx-4090"');
    expect(res.text).to.match(/id="prediction-fits">Yes/);
  });

  it('says when it does not fit', async () => {
    const res = await page({ hfId: fakeHubModels.dense, quantization: 'F16', hardwareName: 'RTX 3060', memoryGb: '12' });
    expect(res.status).to.equal(200);
    expect(res.text).to.match(/id="prediction-fits"><strong>No<\/strong>: needs about 1[4-9](\.\d)? GB of 12 GB/);
  });

  it('names an unknown device or model with a 422 page, and a missing field with a 400', async () => {
    const device = await page({ hfId: fakeHubModels.dense, quantization: 'Q4_K_M', hardwareName: 'Quantum Flux 9000' });
    expect(device.status).to.equal(422);
    expect(device.text).to.include('Unknown device &#39;Quantum Flux 9000&#39;');
    const model = await page({ hfId: 'nobody/zzz-unknown', quantization: 'Q4_K_M', hardwareName: 'RTX 4090' });
    expect(model.status).to.equal(422);
    expect(model.text).to.include('Unknown model');
    const missing = await page({ hfId: fakeHubModels.dense, quantization: 'Q4_K_M' });
    expect(missing.status).to.equal(400);
    expect(missing.text).to.include('id="prediction-errors"');
  });

  it("is linked from the model page, the device page and the leaderboard's model box", async () => {
    const model = await request(ctx.app).get(`/models/${fakeHubModels.dense}`);
    expect(model.text).to.include(`href="/predict?hfId=${encodeURIComponent(fakeHubModels.dense)}"`);
    const device = await request(ctx.app).get('/hardware/nvidia-rtx-4090');
    expect(device.text).to.include('id="device-predict"');
    const board = await request(ctx.app).get('/').query({ hfId: fakeHubModels.dense });
    expect(board.text).to.include(`href="/predict?hfId=${encodeURIComponent(fakeHubModels.dense)}"`);
  });
});
