import { expect } from 'chai';
import request from 'supertest';
import { useTestApp } from '../helpers/app.ts';
import { fakeHubModels } from '../helpers/fake-hub.ts';
import { useSubmitter } from '../helpers/submitter.ts';
import { verdictRulesFingerprint } from '../../src/runs/submission/verdict.ts';
import { createPlausibilityService } from '../../src/runs/submission/plausibility.service.ts';

describe('decode-speed roofline on stored runs', () => {
  const ctx = useTestApp({}, { fakeHub: true });
  const submitter = useSubmitter(ctx);
  // fakeHubModels.dense (the default model): 7.24 B parameters.
  const submit = (overrides: Record<string, unknown>) => submitter.submit({ tokSOut: 150, ...overrides });

  it('judges a 4090 run on a 7B Q4_K_M model against a bound near 230 tok/s', async () => {
    const fine = await submit({ tokSOut: 150 });
    expect(fine.plausibility).to.equal('plausible');
    // 1008 GB/s ÷ (7.24e9 × 4.8 bits ÷ 8) ≈ 232 tok/s.
    expect(fine.decodeBoundTokS).to.be.within(225, 240);
    const tooFast = await submit({ tokSOut: 400 });
    expect(tooFast.plausibility).to.equal('suspect');
    expect(tooFast.plausibilityReason).to.match(/^above 1\.1 × the [\d.]+ tok\/s memory-bandwidth bound \(discrete GPU factor\)$/);
  });

  it('never flags when an input is unknown: unknown GPU, unknown quantization, speculative runs', async () => {
    for (const overrides of [
      { hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'Homebrew Accelerator 9000', vramGb: 24 }, tokSOut: 5000 },
      { quantization: 'my-own-quant', tokSOut: 5000 },
      { engineFlags: { commandSnippet: './llama-server -md draft.gguf --draft-max 8' }, tokSOut: 5000 },
    ]) {
      const run = await submit(overrides);
      expect(run.plausibility, JSON.stringify(overrides)).to.equal('unknown');
    }
    const speculative = await submit({ engineFlags: { commandSnippet: './llama-server -md draft.gguf --draft-max 8' }, tokSOut: 5000 });
    expect(speculative.plausibilityReason).to.match(/^not judged: speculative decoding /);
  });

  it('sums the bandwidth of the cards only for a tensor split: one card bounds a llama.cpp layer split (its default since build 2000)', async () => {
    const twoCards = { hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA GeForce RTX 4090', vramGb: 24, gpuCount: 2 };
    const rowSplit = await submit({
      hardware: twoCards,
      engineFlags: { commandSnippet: './llama-server -m model.gguf -ngl 99 -sm row' },
      tokSOut: 400,
    });
    expect(rowSplit.plausibility).to.equal('plausible');
    expect(rowSplit.decodeBoundTokS).to.be.within(450, 480);
    const layerSplit = await submit({ hardware: twoCards, engineVersion: 'b6120', tokSOut: 400 });
    expect(layerSplit.plausibility).to.equal('suspect');
    expect(layerSplit.decodeBoundTokS).to.be.within(225, 240);
    // Without a build, the split may be an old build's row split: both cards count.
    const unknownBuild = await submit({ hardware: twoCards, engineVersion: undefined, tokSOut: 400 });
    expect(unknownBuild.plausibility).to.equal('plausible');
    expect(unknownBuild.decodeBoundTokS).to.be.within(450, 480);
  });

  it('answers in the dry-run the verdict the run will be stored with, for a model not yet catalogued too', async () => {
    const dryRun = async (body: Record<string, unknown>) => (await submitter.dryRun(body)).plausibility;
    const suspect = await dryRun({ tokSOut: 400 });
    expect(suspect.verdict).to.equal('suspect');
    expect(suspect.decodeBoundTokS).to.be.within(225, 240);
    expect(suspect.reason).to.match(/^above /);
    // An AWQ quantization the catalogue does not hold: sized by its catalogued base, as it will be stored.
    const awq = { hfId: fakeHubModels.awqQuant, quantization: 'AWQ', tokSOut: 200 };
    const predicted = await dryRun(awq);
    expect(await ctx.db('models').where({ hf_id: fakeHubModels.awqQuant }).first('id')).to.equal(undefined);
    const stored = await submit(awq);
    expect(predicted).to.deep.equal({
      verdict: stored.plausibility,
      decodeBoundTokS: stored.decodeBoundTokS,
      reason: stored.plausibilityReason,
    });
    expect(predicted.verdict).to.equal('plausible');
  });

  it('lets the leaderboard hide suspect runs with plausible=true, and marks rows', async () => {
    const all = await request(ctx.app).get('/api/leaderboard').expect(200);
    const suspects = all.body.rows.filter((row: { plausibility: string }) => row.plausibility === 'suspect').length;
    expect(suspects).to.equal(2);
    expect(all.body.rows).to.have.lengthOf(all.body.total);
    const plausible = await request(ctx.app).get('/api/leaderboard').query({ plausible: 'true' }).expect(200);
    expect(plausible.body.total).to.equal(all.body.total - suspects);
    expect(plausible.body.rows.every((row: { plausibility: string }) => row.plausibility !== 'suspect')).to.equal(true);
  });

  it('holds a throughput run to its streams times the bound: 8 sequences share each pass over the weights', async () => {
    const batched = await submit({ batchSize: 8, tokSOut: 1500 });
    expect(batched.plausibility).to.equal('plausible');
    expect(batched.plausibilityReason).to.match(/^within 1\.1 × 8 streams × the /);
    // 5,000 tok/s would need each of the 8 streams above the single-stream bound (~232).
    const impossible = await submit({
      batchSize: 2,
      engineFlags: { concurrency: 4, commandSnippet: 'vllm serve x --max-num-seqs 4' },
      tokSOut: 5000,
    });
    expect(impossible.plausibility).to.equal('suspect');
    expect(impossible.plausibilityReason).to.match(/^above 1\.1 × 8 streams × the /);
  });
});

describe('decode-speed roofline after the catalogue learns more', () => {
  const ctx = useTestApp({}, { fakeHub: true });
  const submitter = useSubmitter(ctx);

  it('re-judges a finetune’s runs when its base is catalogued and gives it an exact size', async () => {
    const submit = (hfId: string) => submitter.submit({ hfId, tokSOut: 150 });
    // No base in the catalogue yet: the size is read from the name ("7B"), approximately.
    const finetune = await submit(fakeHubModels.finetune);
    expect(finetune.model).to.include({ params: 7, paramsApproximate: true });
    const guessedBound = finetune.decodeBoundTokS;

    await submit(fakeHubModels.dense); // 7.24 B, exact
    const after = await request(ctx.app).get(`/api/speed-tests/${finetune.id}`).expect(200);
    expect(after.body.model).to.include({ params: 7.24, paramsApproximate: false });
    expect(after.body.decodeBoundTokS).to.be.below(guessedBound);
    const row = await ctx.db('speed_test_runs').where({ id: finetune.id }).first('model_params', 'param_bucket');
    expect(row).to.deep.equal({ model_params: 7.24, param_bucket: 7 });
  });
});

describe('stored verdicts after the rules change', () => {
  const ctx = useTestApp({}, { fakeHub: true });
  const submitter = useSubmitter(ctx);

  it('re-judges stored runs once when the rules fingerprint changes, writing only the runs whose verdict changed', async () => {
    const ids: string[] = [];
    for (const tokSOut of [150, 160]) ids.push((await submitter.submit({ tokSOut })).id);
    const plausibility = createPlausibilityService({ db: ctx.db });
    // A fresh database has no fingerprint: the first start judges and records it.
    expect(await plausibility.rejudgeIfRulesChanged()).to.deep.equal({ rejudged: true, changed: 0 });
    expect(await plausibility.rejudgeIfRulesChanged()).to.deep.equal({ rejudged: false, changed: 0 });

    // As if an older deploy had judged one run by other rules.
    await ctx
      .db('speed_test_runs')
      .where({ id: ids[0] })
      .update({ plausibility: 'suspect', decode_bound_tok_s: 1, plausibility_reason: 'older rules' });
    await ctx.db('verdict_rules').update({ fingerprint: 'older rules' });
    expect(await plausibility.rejudgeIfRulesChanged()).to.deep.equal({ rejudged: true, changed: 1 });
    const run = await request(ctx.app).get(`/api/speed-tests/${ids[0]}`).expect(200);
    expect(run.body.plausibility).to.equal('plausible');
    expect(run.body.decodeBoundTokS).to.be.above(150);
    expect((await ctx.db('verdict_rules').first('fingerprint')).fingerprint).to.equal(verdictRulesFingerprint());
  });
});
