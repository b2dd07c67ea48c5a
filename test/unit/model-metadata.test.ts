import { expect } from 'chai';
import {
  catalogueEntryFromHub,
  isMoEArchitecture,
  isValidHfId,
  paramsFromName,
  type CatalogueEntry,
} from '../../src/lib/model-metadata.ts';
import { hubModelInfoFromJson, type HubModelInfo } from '../../src/clients/hub.ts';
import { fakeHubApiResponses, fakeHubConfigs, fakeHubModels } from '../helpers/fake-hub.ts';

/** The info the client would return for a fake-hub fixture (config.json included when served). */
function fixtureInfo(id: string): HubModelInfo {
  const info = hubModelInfoFromJson(fakeHubApiResponses[id]);
  if (!info) throw new Error(`no fixture ${id}`);
  const configJson = fakeHubConfigs[id];
  return configJson ? { ...info, configJson } : info;
}

function info(fields: Partial<HubModelInfo>): HubModelInfo {
  return { gated: false, tags: [], ...fields };
}

describe('model metadata from the hub', () => {
  describe('catalogueEntryFromHub on the fake hub fixtures', () => {
    it('maps a dense safetensors model', () => {
      const entry = catalogueEntryFromHub(fixtureInfo(fakeHubModels.dense), fakeHubModels.dense);
      expect(entry).to.deep.equal({
        hfId: 'fakeorg/Dense-7B',
        displayName: 'Dense-7B',
        family: 'llama',
        params: 7.24,
        paramsApproximate: false,
        activeParams: null,
        isMoE: false,
        base: null,
        hubSha: fakeHubApiResponses[fakeHubModels.dense]!.sha as string,
        gated: false,
      } satisfies CatalogueEntry);
      expect(entry.hubSha).to.match(/^[0-9a-f]{40}$/);
    });

    it('maps a gated model (no config.json) as gated', () => {
      const entry = catalogueEntryFromHub(fixtureInfo(fakeHubModels.gated), fakeHubModels.gated);
      expect(entry).to.include({ hfId: 'fakeorg/Gated-13B', displayName: 'Gated-13B', family: 'llama', params: 13.02, gated: true, isMoE: false });
    });

    it('maps a GGUF quant: family and params from gguf, base quantized from the tags', () => {
      const entry = catalogueEntryFromHub(fixtureInfo(fakeHubModels.ggufQuant), fakeHubModels.ggufQuant);
      expect(entry).to.include({ displayName: 'Dense-7B-GGUF', family: 'llama', params: 7.24, paramsApproximate: false, isMoE: false });
      expect(entry.base).to.deep.equal({ hfId: 'fakeorg/Dense-7B', relation: 'quantized' });
    });

    it('maps a finetune without safetensors: params left null for the base model to fill', () => {
      const entry = catalogueEntryFromHub(fixtureInfo(fakeHubModels.finetune), fakeHubModels.finetune);
      expect(entry).to.include({ family: 'llama', params: null, paramsApproximate: false, activeParams: null, isMoE: false });
      expect(entry.base).to.deep.equal({ hfId: 'fakeorg/Dense-7B', relation: 'finetune' });
    });

    it('detects MoE by architecture (Mixtral) and keeps the safetensors total', () => {
      const entry = catalogueEntryFromHub(fixtureInfo(fakeHubModels.moeByArchitecture), fakeHubModels.moeByArchitecture);
      expect(entry).to.include({ family: 'mixtral', params: 46.7, paramsApproximate: false, isMoE: true, activeParams: null });
    });

    it('detects MoE only from config.json expert counts', () => {
      const withConfig = catalogueEntryFromHub(fixtureInfo(fakeHubModels.moeByConfig), fakeHubModels.moeByConfig);
      expect(withConfig).to.include({ family: 'custom', params: 30.5, isMoE: true });
      const { configJson: _ignored, ...withoutConfig } = fixtureInfo(fakeHubModels.moeByConfig);
      expect(catalogueEntryFromHub(withoutConfig, fakeHubModels.moeByConfig).isMoE).to.equal(false);
    });
  });

  describe('ids and names', () => {
    it("uses the hub's canonical id, else the requested one; displayName is the repo name", () => {
      expect(catalogueEntryFromHub(info({ id: 'Org/Model-1B' }), 'org/model-1b')).to.include({ hfId: 'Org/Model-1B', displayName: 'Model-1B' });
      expect(catalogueEntryFromHub(info({}), 'org/model-1b')).to.include({ hfId: 'org/model-1b', displayName: 'model-1b' });
    });

    it('hubSha is the sha or null; gated is true for auto, manual and true', () => {
      expect(catalogueEntryFromHub(info({ sha: 'abc' }), 'a/b').hubSha).to.equal('abc');
      expect(catalogueEntryFromHub(info({}), 'a/b').hubSha).to.equal(null);
      for (const gated of ['auto', 'manual', true] as const) {
        expect(catalogueEntryFromHub(info({ gated }), 'a/b').gated).to.equal(true);
      }
      expect(catalogueEntryFromHub(info({ gated: false }), 'a/b').gated).to.equal(false);
    });

    it('isValidHfId accepts <org>/<model> only', () => {
      for (const ok of ['a/b', 'meta-llama/Llama-3.1-8B', 'Org_1/model.v2_x', `${'a'.repeat(96)}/b`]) expect(isValidHfId(ok), ok).to.equal(true);
      for (const bad of ['nope', 'a/b/c', '../etc', './x', 'a/.hidden', '-a/b', 'a/-b', '/b', 'a/', 'a b/c', 'a/b%2F', `${'a'.repeat(97)}/b`, 'a/b?x', 'a/b#x']) {
        expect(isValidHfId(bad), bad).to.equal(false);
      }
    });
  });

  describe('family', () => {
    it('comes from config.model_type, else gguf.architecture, else null', () => {
      expect(catalogueEntryFromHub(info({ config: { model_type: 'qwen3' }, gguf: { architecture: 'qwen3x' } }), 'a/b').family).to.equal('qwen3');
      expect(catalogueEntryFromHub(info({ gguf: { architecture: 'qwen3moe' } }), 'a/b').family).to.equal('qwen3moe');
      expect(catalogueEntryFromHub(info({}), 'a/b').family).to.equal(null);
    });
  });

  describe('params', () => {
    it('safetensors.total wins over gguf.total, both rounded to 2 decimals in billions', () => {
      const entry = catalogueEntryFromHub(info({ safetensors: { total: 8030261248 }, gguf: { total: 1 } }), 'meta-llama/Llama-3.1-8B');
      expect(entry).to.include({ params: 8.03, paramsApproximate: false });
      expect(catalogueEntryFromHub(info({ gguf: { total: 30532122624, architecture: 'qwen3moe' } }), 'u/Qwen3-30B-A3B-GGUF')).to.include({
        params: 30.53,
        paramsApproximate: false,
        activeParams: 3,
        isMoE: true,
      });
    });

    it('falls back to the name pattern (approximate) when there is no total and no base', () => {
      expect(catalogueEntryFromHub(info({}), 'org/Some-Model-70B-Instruct')).to.include({ params: 70, paramsApproximate: true });
      expect(catalogueEntryFromHub(info({}), 'org/phi-4')).to.include({ params: null, paramsApproximate: false });
    });

    it('leaves params null when there is no total but a base (the caller takes the base model params)', () => {
      const entry = catalogueEntryFromHub(info({ cardData: { base_model: 'org/Base-7B' } }), 'other/Base-7B-Tuned');
      expect(entry).to.include({ params: null, paramsApproximate: false });
      expect(entry.base).to.deep.equal({ hfId: 'org/Base-7B', relation: 'finetune' });
    });

    it('ignores totals that are not positive numbers', () => {
      expect(catalogueEntryFromHub(info({ safetensors: { total: 0 } }), 'org/X-3B')).to.include({ params: 3, paramsApproximate: true });
    });
  });

  describe('base model and relation', () => {
    it('takes the relation from base_model:<relation>:<id> tags', () => {
      for (const relation of ['quantized', 'finetune', 'adapter', 'merge'] as const) {
        const entry = catalogueEntryFromHub(info({ tags: ['base_model:org/Base', `base_model:${relation}:org/Base`] }), 'me/Child');
        expect(entry.base, relation).to.deep.equal({ hfId: 'org/Base', relation });
      }
    });

    it('prefers the cardData base (first of an array) and the tag relation that names it', () => {
      const entry = catalogueEntryFromHub(
        info({
          cardData: { base_model: ['org/First', 'org/Second'] },
          tags: ['base_model:merge:org/Second', 'base_model:merge:org/First'],
        }),
        'me/Merged',
      );
      expect(entry.base).to.deep.equal({ hfId: 'org/First', relation: 'merge' });
    });

    it('with only cardData.base_model: quantized when the repo looks like a quant, else finetune', () => {
      const base = { cardData: { base_model: 'org/Base-8B' } };
      expect(catalogueEntryFromHub(info(base), 'me/Base-8B-Tuned').base).to.deep.equal({ hfId: 'org/Base-8B', relation: 'finetune' });
      const quants: [Partial<HubModelInfo>, string][] = [
        [{ gguf: { total: 8e9 } }, 'me/Whatever'],
        [{ tags: ['awq'] }, 'me/Whatever'],
        [{ tags: ['mlx'] }, 'me/Whatever'],
        [{}, 'me/Base-8B-GGUF'],
        [{}, 'me/Base-8B-AWQ'],
        [{}, 'me/Base-8B-GPTQ-Int4'],
        [{}, 'me/Base-8B-4bit'],
        [{}, 'me/Base-8B-bnb-4bit'],
        [{}, 'me/Base-8B-8bit'],
        [{}, 'me/Base-8B-MLX'],
        [{}, 'me/Base-8B-exl2'],
        [{ configJson: { quantization_config: { quant_method: 'fp8' } } }, 'me/Whatever'],
      ];
      for (const [fields, id] of quants) {
        expect(catalogueEntryFromHub(info({ ...base, ...fields }), id).base?.relation, id).to.equal('quantized');
      }
    });

    it('uses a relation tag alone when there is no cardData', () => {
      expect(catalogueEntryFromHub(info({ tags: ['base_model:adapter:org/Base'] }), 'me/Lora').base).to.deep.equal({
        hfId: 'org/Base',
        relation: 'adapter',
      });
    });

    it('ignores a base equal to the model itself and ids that are not <org>/<model>', () => {
      expect(catalogueEntryFromHub(info({ cardData: { base_model: 'Me/Model' }, tags: ['base_model:finetune:me/model'] }), 'me/Model').base).to.equal(null);
      expect(catalogueEntryFromHub(info({ cardData: { base_model: 'llama' } }), 'me/Model').base).to.equal(null);
      expect(catalogueEntryFromHub(info({ cardData: { base_model: [] } }), 'me/Model').base).to.equal(null);
      expect(
        catalogueEntryFromHub(info({ cardData: { base_model: ['me/Model', 'org/Real'] } }), 'me/Model').base,
      ).to.deep.equal({ hfId: 'org/Real', relation: 'finetune' });
    });
  });

  describe('MoE detection', () => {
    it('recognises MoE architectures, model types and GGUF architectures, case-insensitively', () => {
      for (const name of [
        'MixtralForCausalLM',
        'mixtral',
        'qwen2_moe',
        'Qwen3MoeForCausalLM',
        'qwen3moe',
        'deepseek_v2',
        'DeepseekV3ForCausalLM',
        'deepseek2',
        'dbrx',
        'JambaForCausalLM',
        'gpt_oss',
        'gpt-oss',
        'GptOssForCausalLM',
        'grok-1',
        'arctic',
        'OlmoeForCausalLM',
        'granitemoe',
        'PhiMoEForCausalLM',
        'Llama4ForConditionalGeneration',
      ]) {
        expect(isMoEArchitecture(name), name).to.equal(true);
      }
      for (const name of ['LlamaForCausalLM', 'llama', 'qwen2', 'Qwen3ForCausalLM', 'gemma3', 'phi3', 'mistral', 'deepseek', 'custom']) {
        expect(isMoEArchitecture(name), name).to.equal(false);
      }
    });

    it('flags MoE from architectures, model_type, gguf.architecture, config experts or the name', () => {
      const moe = (fields: Partial<HubModelInfo>, id = 'org/Model') => catalogueEntryFromHub(info(fields), id).isMoE;
      expect(moe({ config: { architectures: ['DbrxForCausalLM'] } })).to.equal(true);
      expect(moe({ config: { model_type: 'qwen3_moe' } })).to.equal(true);
      expect(moe({ gguf: { architecture: 'qwen3moe' } })).to.equal(true);
      expect(moe({ configJson: { num_local_experts: 8 } })).to.equal(true);
      expect(moe({ configJson: { n_routed_experts: 256 } })).to.equal(true);
      expect(moe({ configJson: { text_config: { num_local_experts: 16 } } })).to.equal(true);
      expect(moe({ configJson: { num_experts: 1 } })).to.equal(false);
      expect(moe({ configJson: { num_experts: null } })).to.equal(false);
      expect(moe({}, 'org/Thing-8x22B')).to.equal(true);
      expect(moe({}, 'org/Thing-30B-A3B')).to.equal(true);
      expect(moe({ config: { architectures: ['LlamaForCausalLM'], model_type: 'llama' } }, 'org/Dense-8B')).to.equal(false);
    });

    it('takes activeParams from an -A<n>B name', () => {
      expect(catalogueEntryFromHub(info({ safetensors: { total: 235e9 } }), 'Qwen/Qwen3-235B-A22B')).to.include({
        params: 235,
        activeParams: 22,
        isMoE: true,
      });
    });
  });

  describe('paramsFromName', () => {
    const table: [string, { params: number | null; activeParams: number | null; isMoE: boolean }][] = [
      ['Dense-7B', { params: 7, activeParams: null, isMoE: false }],
      ['Qwen2.5-0.5B-Instruct', { params: 0.5, activeParams: null, isMoE: false }],
      ['Qwen2.5-1.5b', { params: 1.5, activeParams: null, isMoE: false }],
      ['Llama-3.3-70B-Instruct', { params: 70, activeParams: null, isMoE: false }],
      ['meta-llama/Llama-3.1-405B', { params: 405, activeParams: null, isMoE: false }],
      ['gemma-3-270m', { params: 0.27, activeParams: null, isMoE: false }],
      ['gemma-3-27b-it', { params: 27, activeParams: null, isMoE: false }],
      ['Mixtral-8x7B-Instruct-v0.1', { params: null, activeParams: null, isMoE: true }],
      ['Mixtral-8x22B', { params: null, activeParams: null, isMoE: true }],
      ['Qwen3-30B-A3B', { params: 30, activeParams: 3, isMoE: true }],
      ['qwen3-235b-a22b-gguf', { params: 235, activeParams: 22, isMoE: true }],
      ['Qwen1.5-MoE-A2.7B', { params: null, activeParams: 2.7, isMoE: true }],
      ['Llama-3.1-8B-Instruct-4bit', { params: 8, activeParams: null, isMoE: false }],
      ['Model-7B.Q4_K_M', { params: 7, activeParams: null, isMoE: false }],
      ['phi-4', { params: null, activeParams: null, isMoE: false }],
      ['Qwen2.5B', { params: null, activeParams: null, isMoE: false }],
      ['gpt-oss-20b', { params: 20, activeParams: null, isMoE: false }],
    ];
    for (const [name, expected] of table) {
      it(`${name} -> ${JSON.stringify(expected)}`, () => {
        expect(paramsFromName(name)).to.deep.equal(expected);
      });
    }
  });
});
