import { expect } from 'chai';
import request from 'supertest';
import { createPlausibilityService } from '../../src/runs/submission/plausibility.service.ts';
import { fillCuratedModelFacts } from '../../src/services/models.service.ts';
import { useTestApp } from '../helpers/app.ts';
import { fakeHubModels } from '../helpers/fake-hub.ts';
import { useSubmitter } from '../helpers/submitter.ts';

/**
 * The model side of the decode-speed roofline (issue 16, part 2): MoE active counts without
 * an "A3B" in the name, packed quantizations sized by their base, native bits capping the
 * label, and catalogue rows made before all that. Every run is on an RTX 4090 (1,008 GB/s).
 */
describe('decode-speed roofline: model facts from the hub', () => {
  const ctx = useTestApp({}, { fakeHub: true });
  const { submit, dryRun: sendDryRun } = useSubmitter(ctx);

  it('judges an MoE without an active count in its name (Mixtral 8x7B) by the count computed from its config.json', async () => {
    const run = await submit({ hfId: fakeHubModels.moeByArchitecture, tokSOut: 100 });
    expect(run.model).to.include({ isMoE: true, params: 46.7, activeParams: 12.75 });
    // 1008 GB/s ÷ (12.75e9 × 4.8 bits ÷ 8) = 131.8 tok/s.
    expect(run).to.include({ plausibility: 'plausible', decodeBoundTokS: 131.8 });
    const doubled = await submit({ hfId: fakeHubModels.moeByArchitecture, tokSOut: 200 });
    expect(doubled.plausibility).to.equal('suspect');
  });

  it("sizes a packed AWQ repo by its base's count, not the hub's int32 total, and judges its runs", async () => {
    // Before its base is catalogued: the size in the name, approximate.
    const early = await submit({ hfId: fakeHubModels.awqQuant, quantization: 'AWQ', tokSOut: 150 });
    expect(early.model).to.include({ params: 7, paramsApproximate: true });
    await submit({ hfId: fakeHubModels.dense, tokSOut: 150 });
    const run = await submit({ hfId: fakeHubModels.awqQuant, quantization: 'AWQ', tokSOut: 150 });
    // The hub's 1.97 B would give a 991 tok/s bound; 7.24 B at 4.125 bits gives 270.
    expect(run.model).to.include({ params: 7.24, paramsApproximate: false });
    expect(run).to.include({ plausibility: 'plausible', decodeBoundTokS: 270 });
    const tooFast = await submit({ hfId: fakeHubModels.awqQuant, quantization: 'AWQ', tokSOut: 400 });
    expect(tooFast.plausibility).to.equal('suspect');
    const adopted = await request(ctx.app).get(`/api/speed-tests/${early.id}`).expect(200);
    expect(adopted.body.model).to.include({ params: 7.24, paramsApproximate: false });
  });

  it('reads a gpt-oss GGUF labelled F16 at its native MXFP4 bits, with the curated active count', async () => {
    const dryRun = await sendDryRun({ hfId: fakeHubModels.gptOssGguf, quantization: 'F16', tokSOut: 200 });
    expect(dryRun.parsed.model).to.include({ catalogued: false, isMoE: true, activeParams: 3.61 });
    expect(dryRun.parsed.model).to.not.have.property('nativeBitsPerWeight');

    const run = await submit({ hfId: fakeHubModels.gptOssGguf, quantization: 'F16', tokSOut: 200 });
    // At 16 bits the bound would be 139.6 tok/s and flag this run; MXFP4 (4.25 bits) gives 525.6.
    expect(run).to.include({ plausibility: 'plausible', decodeBoundTokS: 525.6 });
    const row = await ctx
      .db('models')
      .where({ hf_id: fakeHubModels.gptOssGguf })
      .first('native_bits_per_weight', 'active_params', 'is_moe');
    expect(row).to.deep.equal({ native_bits_per_weight: 4.25, active_params: 3.61, is_moe: true });
    const tripled = await submit({ hfId: fakeHubModels.gptOssGguf, quantization: 'F16', tokSOut: 700 });
    expect(tripled.plausibility).to.equal('suspect');
  });
});

describe('decode-speed roofline: catalogue rows made before the curated table', () => {
  const ctx = useTestApp({}, { fakeHub: true });
  const submitter = useSubmitter(ctx);

  it('fills them from the curated table and re-judges their runs when the rules change', async () => {
    // As the old cataloguing left them: gpt-oss taken for a dense 20.9 B model, a packed
    // Qwen3 AWQ count, and a dense model the table does not know.
    await ctx.db('models').insert([
      { hf_id: 'unsloth/gpt-oss-20b-GGUF', display_name: 'gpt-oss-20b-GGUF', family: 'gpt-oss', params: 20.91 },
      {
        hf_id: 'someone/Qwen3-30B-A3B-AWQ',
        display_name: 'Qwen3-30B-A3B-AWQ',
        family: 'qwen3_moe',
        params: 4.6,
        is_moe: true,
        active_params: 3,
      },
      { hf_id: 'org/Plain-8B', display_name: 'Plain-8B', family: 'llama', params: 8.03 },
    ]);
    const submit = (hfId: string, quantization: string) => submitter.submit({ hfId, quantization, tokSOut: 120 });
    const gptOss = await submit('unsloth/gpt-oss-20b-GGUF', 'F16');
    expect(gptOss.plausibility).to.equal('suspect'); // the false alarm the old facts raise

    // The start-up step after a deploy whose rules (the curated table among them) changed.
    expect((await createPlausibilityService({ db: ctx.db }).rejudgeIfRulesChanged()).rejudged).to.equal(true);
    const byId = await ctx
      .db('models')
      .whereIn('hf_id', ['someone/Qwen3-30B-A3B-AWQ', 'unsloth/gpt-oss-20b-GGUF', 'org/Plain-8B'])
      .orderBy('hf_id')
      .select('hf_id', 'params', 'params_approximate', 'active_params', 'is_moe', 'native_bits_per_weight');
    expect(byId).to.deep.equal([
      { hf_id: 'org/Plain-8B', params: 8.03, params_approximate: false, active_params: null, is_moe: false, native_bits_per_weight: null },
      {
        hf_id: 'someone/Qwen3-30B-A3B-AWQ',
        params: 30.5,
        params_approximate: false,
        active_params: 3,
        is_moe: true,
        native_bits_per_weight: null,
      },
      {
        hf_id: 'unsloth/gpt-oss-20b-GGUF',
        params: 20.91,
        params_approximate: false,
        active_params: 3.61,
        is_moe: true,
        native_bits_per_weight: 4.25,
      },
    ]);
    const runRow = await ctx.db('speed_test_runs').where({ id: gptOss.id }).first('model_is_moe', 'model_params');
    expect(runRow).to.deep.equal({ model_is_moe: true, model_params: 20.91 });
    // A second pass changes nothing.
    expect(await fillCuratedModelFacts(ctx.db)).to.deep.equal([]);

    const after = await request(ctx.app).get(`/api/speed-tests/${gptOss.id}`).expect(200);
    expect(after.body).to.include({ plausibility: 'plausible', decodeBoundTokS: 525.6 });
  });
});
