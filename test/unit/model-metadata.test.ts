import { expect } from 'chai';
import { CURATED_MODELS, curatedModelFacts } from '../../src/lib/curated-models.ts';
import {
  catalogueEntryFromHub,
  catalogueFacts,
  hasPackedParameterCount,
  isMoEArchitecture,
  isValidHfId,
  moeParamsFromConfig,
  nativeBitsPerWeightFromConfig,
  paramsFromName,
  publicCatalogueEntry,
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
        nativeBitsPerWeight: null,
        base: null,
        hubSha: fakeHubApiResponses[fakeHubModels.dense]!.sha as string,
        gated: false,
      } satisfies CatalogueEntry);
      expect(entry.hubSha).to.match(/^[0-9a-f]{40}$/);
    });

    it('maps a gated model (no config.json) as gated', () => {
      const entry = catalogueEntryFromHub(fixtureInfo(fakeHubModels.gated), fakeHubModels.gated);
      expect(entry).to.include({
        hfId: 'fakeorg/Gated-13B',
        displayName: 'Gated-13B',
        family: 'llama',
        params: 13.02,
        gated: true,
        isMoE: false,
      });
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

    it('detects MoE by architecture (Mixtral), keeps the safetensors total and computes the active count from config.json', () => {
      const entry = catalogueEntryFromHub(fixtureInfo(fakeHubModels.moeByArchitecture), fakeHubModels.moeByArchitecture);
      expect(entry).to.include({ family: 'mixtral', params: 46.7, paramsApproximate: false, isMoE: true, activeParams: 12.75 });
    });

    it('drops the packed count of an AWQ repo (params left for its base) and keeps its native 4.125 bits', () => {
      const entry = catalogueEntryFromHub(fixtureInfo(fakeHubModels.awqQuant), fakeHubModels.awqQuant);
      expect(entry).to.include({ params: null, paramsApproximate: false, isMoE: false, nativeBitsPerWeight: 4.125 });
      expect(entry.base).to.deep.equal({ hfId: 'fakeorg/Dense-7B', relation: 'quantized' });
    });

    it('gives a gpt-oss GGUF without config.json its curated active count and native MXFP4 bits', () => {
      const entry = catalogueEntryFromHub(fixtureInfo(fakeHubModels.gptOssGguf), fakeHubModels.gptOssGguf);
      expect(entry).to.include({ family: 'gpt-oss', params: 20.91, isMoE: true, activeParams: 3.61, nativeBitsPerWeight: 4.25 });
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
      expect(catalogueEntryFromHub(info({ id: 'Org/Model-1B' }), 'org/model-1b')).to.include({
        hfId: 'Org/Model-1B',
        displayName: 'Model-1B',
      });
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
      for (const ok of ['a/b', 'meta-llama/Llama-3.1-8B', 'Org_1/model.v2_x', `${'a'.repeat(96)}/b`])
        expect(isValidHfId(ok), ok).to.equal(true);
      for (const bad of [
        'nope',
        'a/b/c',
        '../etc',
        './x',
        'a/.hidden',
        '-a/b',
        'a/-b',
        '/b',
        'a/',
        'a b/c',
        'a/b%2F',
        `${'a'.repeat(97)}/b`,
        'a/b?x',
        'a/b#x',
      ]) {
        expect(isValidHfId(bad), bad).to.equal(false);
      }
    });
  });

  describe('family', () => {
    it('comes from config.model_type, else gguf.architecture, else null', () => {
      expect(catalogueEntryFromHub(info({ config: { model_type: 'qwen3' }, gguf: { architecture: 'qwen3x' } }), 'a/b').family).to.equal(
        'qwen3',
      );
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
      expect(
        catalogueEntryFromHub(info({ cardData: { base_model: 'Me/Model' }, tags: ['base_model:finetune:me/model'] }), 'me/Model').base,
      ).to.equal(null);
      expect(catalogueEntryFromHub(info({ cardData: { base_model: 'llama' } }), 'me/Model').base).to.equal(null);
      expect(catalogueEntryFromHub(info({ cardData: { base_model: [] } }), 'me/Model').base).to.equal(null);
      expect(catalogueEntryFromHub(info({ cardData: { base_model: ['me/Model', 'org/Real'] } }), 'me/Model').base).to.deep.equal({
        hfId: 'org/Real',
        relation: 'finetune',
      });
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
      ['Llama-4-Scout-17B-16E-Instruct', { params: null, activeParams: 17, isMoE: true }],
      ['unsloth/Llama-4-Maverick-17B-128E-Instruct-GGUF', { params: null, activeParams: 17, isMoE: true }],
      ['Model-7B-1E', { params: 7, activeParams: null, isMoE: false }],
    ];
    for (const [name, expected] of table) {
      it(`${name} -> ${JSON.stringify(expected)}`, () => {
        expect(paramsFromName(name)).to.deep.equal(expected);
      });
    }
  });
});

/**
 * Real config.json values (the fields the formula reads) of published MoE models, with the
 * totals and active counts their model cards publish.
 */
const qwen3_30b_a3b = {
  architectures: ['Qwen3MoeForCausalLM'],
  model_type: 'qwen3_moe',
  hidden_size: 2048,
  intermediate_size: 6144,
  moe_intermediate_size: 768,
  num_hidden_layers: 48,
  num_attention_heads: 32,
  num_key_value_heads: 4,
  head_dim: 128,
  num_experts: 128,
  num_experts_per_tok: 8,
  decoder_sparse_step: 1,
  mlp_only_layers: [],
  vocab_size: 151936,
  tie_word_embeddings: false,
  torch_dtype: 'bfloat16',
};
const gptOss20b = {
  architectures: ['GptOssForCausalLM'],
  model_type: 'gpt_oss',
  hidden_size: 2880,
  intermediate_size: 2880,
  num_hidden_layers: 24,
  num_attention_heads: 64,
  num_key_value_heads: 8,
  head_dim: 64,
  num_local_experts: 32,
  num_experts_per_tok: 4,
  experts_per_token: 4,
  vocab_size: 201088,
  tie_word_embeddings: false,
  quantization_config: {
    quant_method: 'mxfp4',
    modules_to_not_convert: ['model.layers.*.self_attn', 'model.layers.*.mlp.router', 'model.embed_tokens', 'lm_head'],
  },
};
const llama4Scout = {
  architectures: ['Llama4ForConditionalGeneration'],
  model_type: 'llama4',
  tie_word_embeddings: false,
  text_config: {
    model_type: 'llama4_text',
    hidden_size: 5120,
    intermediate_size: 8192,
    intermediate_size_mlp: 16384,
    num_hidden_layers: 48,
    num_attention_heads: 40,
    num_key_value_heads: 8,
    head_dim: 128,
    num_local_experts: 16,
    num_experts_per_tok: 1,
    interleave_moe_layer_step: 1,
    vocab_size: 202048,
  },
  vision_config: { hidden_size: 1408, num_hidden_layers: 34 },
};
const deepSeekV3 = {
  architectures: ['DeepseekV3ForCausalLM'],
  model_type: 'deepseek_v3',
  hidden_size: 7168,
  intermediate_size: 18432,
  moe_intermediate_size: 2048,
  num_hidden_layers: 61,
  num_nextn_predict_layers: 1,
  num_attention_heads: 128,
  num_key_value_heads: 128,
  n_shared_experts: 1,
  n_routed_experts: 256,
  num_experts_per_tok: 8,
  first_k_dense_replace: 3,
  moe_layer_freq: 1,
  n_group: 8,
  topk_group: 4,
  q_lora_rank: 1536,
  kv_lora_rank: 512,
  qk_nope_head_dim: 128,
  qk_rope_head_dim: 64,
  v_head_dim: 128,
  vocab_size: 129280,
  tie_word_embeddings: false,
  quantization_config: { quant_method: 'fp8', activation_scheme: 'dynamic', fmt: 'e4m3', weight_block_size: [128, 128] },
};

const PUBLISHED: { name: string; hfId: string; config: Record<string, unknown>; totalB: number; activeB: number; source: string }[] = [
  {
    name: 'Qwen3-30B-A3B',
    hfId: 'Qwen/Qwen3-30B-A3B',
    config: qwen3_30b_a3b,
    totalB: 30.5,
    activeB: 3.3,
    source: 'huggingface.co/Qwen/Qwen3-30B-A3B: 30.5B total, 3.3B activated',
  },
  {
    name: 'Qwen3-235B-A22B',
    hfId: 'Qwen/Qwen3-235B-A22B',
    config: {
      ...qwen3_30b_a3b,
      hidden_size: 4096,
      intermediate_size: 12288,
      moe_intermediate_size: 1536,
      num_hidden_layers: 94,
      num_attention_heads: 64,
    },
    totalB: 235,
    activeB: 22,
    source: 'huggingface.co/Qwen/Qwen3-235B-A22B: 235B total, 22B activated',
  },
  {
    name: 'Mixtral-8x7B',
    hfId: 'mistralai/Mixtral-8x7B-v0.1',
    config: {
      architectures: ['MixtralForCausalLM'],
      model_type: 'mixtral',
      hidden_size: 4096,
      intermediate_size: 14336,
      num_hidden_layers: 32,
      num_attention_heads: 32,
      num_key_value_heads: 8,
      num_local_experts: 8,
      num_experts_per_tok: 2,
      vocab_size: 32000,
      tie_word_embeddings: false,
    },
    totalB: 46.7,
    activeB: 12.9,
    source: 'mistral.ai/news/mixtral-of-experts: 46.7B total, 12.9B per token',
  },
  {
    name: 'gpt-oss-20b',
    hfId: 'openai/gpt-oss-20b',
    config: gptOss20b,
    totalB: 20.91,
    activeB: 3.61,
    source: 'gpt-oss model card (arXiv:2508.10925) table 1',
  },
  {
    name: 'gpt-oss-120b',
    hfId: 'openai/gpt-oss-120b',
    config: { ...gptOss20b, num_hidden_layers: 36, num_local_experts: 128 },
    totalB: 116.83,
    activeB: 5.13,
    source: 'gpt-oss model card (arXiv:2508.10925) table 1',
  },
  {
    name: 'DeepSeek-V3',
    hfId: 'deepseek-ai/DeepSeek-V3',
    config: deepSeekV3,
    totalB: 671,
    activeB: 37,
    source: 'huggingface.co/deepseek-ai/DeepSeek-V3: 671B total, 37B activated',
  },
  {
    name: 'Llama 4 Scout (text part)',
    hfId: 'meta-llama/Llama-4-Scout-17B-16E-Instruct',
    config: llama4Scout,
    totalB: 109,
    activeB: 17,
    source: 'Llama 4 model card: 109B total (vision encoder included), 17B activated',
  },
  {
    name: 'Llama 4 Maverick (alternating dense and MoE layers)',
    hfId: 'meta-llama/Llama-4-Maverick-17B-128E-Instruct',
    config: { ...llama4Scout, text_config: { ...llama4Scout.text_config, num_local_experts: 128, interleave_moe_layer_step: 2 } },
    totalB: 400,
    activeB: 17,
    source: 'Llama 4 model card: 400B total, 17B activated',
  },
  {
    name: 'GLM-4.5',
    hfId: 'zai-org/GLM-4.5',
    config: {
      architectures: ['Glm4MoeForCausalLM'],
      model_type: 'glm4_moe',
      hidden_size: 5120,
      intermediate_size: 12288,
      moe_intermediate_size: 1536,
      num_hidden_layers: 92,
      num_attention_heads: 96,
      num_key_value_heads: 8,
      head_dim: 128,
      n_routed_experts: 160,
      n_shared_experts: 1,
      num_experts_per_tok: 8,
      first_k_dense_replace: 3,
      vocab_size: 151552,
      tie_word_embeddings: false,
    },
    totalB: 355,
    activeB: 32,
    source: 'huggingface.co/zai-org/GLM-4.5: 355B total, 32B active',
  },
];

describe('MoE parameters from config.json', () => {
  for (const model of PUBLISHED) {
    it(`${model.name}: the total within 2% and the per-token count within 10% of the published figures (${model.source})`, () => {
      const counted = moeParamsFromConfig(model.config)!;
      expect(counted, model.name).to.not.equal(null);
      expect(Math.abs(counted.totalB - model.totalB) / model.totalB, `total ${counted.totalB}`).to.be.at.most(0.02);
      expect(Math.abs(counted.activeB - model.activeB) / model.activeB, `active ${counted.activeB}`).to.be.at.most(0.1);
    });

    it(`${model.name}: the catalogue's active count is at most the published ${model.activeB} B (a smaller count keeps the bound an upper limit)`, () => {
      const entry = catalogueEntryFromHub(
        info({
          config: { model_type: String(model.config.model_type) },
          configJson: model.config,
          safetensors: { total: model.totalB * 1e9 },
        }),
        model.hfId,
      );
      expect(entry.isMoE).to.equal(true);
      expect(entry.activeParams)
        .to.be.a('number')
        .and.to.be.at.most(model.activeB)
        .and.to.be.above(model.activeB * 0.9);
    });
  }

  it('counts what a token reads: the output head but not the input embedding (gpt-oss and DeepSeek publish exactly that)', () => {
    expect(moeParamsFromConfig(gptOss20b)).to.deep.equal({ totalB: 20.91, activeB: 3.61 });
    // DeepSeek's README_WEIGHTS.md: 36.6B activated including the 0.9B output head.
    expect(moeParamsFromConfig(deepSeekV3)!.activeB).to.equal(36.62);
    // Tied embeddings are one matrix, counted once in the total.
    const tied = moeParamsFromConfig({ ...qwen3_30b_a3b, tie_word_embeddings: true })!;
    expect(tied.totalB).to.equal(Math.round((30.53 - 0.31) * 100) / 100);
    expect(tied.activeB).to.equal(3.04);
  });

  it('reads Hunyuan-style array and alternative key spellings (moe_topk, num_experts_per_token)', () => {
    const { num_experts_per_tok: _k, ...rest } = qwen3_30b_a3b;
    expect(moeParamsFromConfig({ ...rest, moe_topk: [8] })).to.deep.equal(moeParamsFromConfig(qwen3_30b_a3b));
    expect(moeParamsFromConfig({ ...rest, num_experts_per_token: 8 })).to.deep.equal(moeParamsFromConfig(qwen3_30b_a3b));
  });

  it('returns null for dense configs, unknown architectures and configs missing a dimension', () => {
    expect(moeParamsFromConfig(undefined)).to.equal(null);
    expect(moeParamsFromConfig(fakeHubConfigs[fakeHubModels.dense])).to.equal(null);
    expect(moeParamsFromConfig(fakeHubConfigs[fakeHubModels.moeByConfig])).to.equal(null); // model_type 'custom'
    expect(moeParamsFromConfig({ ...qwen3_30b_a3b, model_type: 'qwen3_next' })).to.equal(null); // hybrid linear attention
    expect(moeParamsFromConfig({ ...qwen3_30b_a3b, num_experts_per_tok: undefined })).to.equal(null);
    expect(moeParamsFromConfig({ ...qwen3_30b_a3b, num_experts: 1 })).to.equal(null);
    expect(moeParamsFromConfig({ ...deepSeekV3, qk_rope_head_dim: null })).to.equal(null);
  });
});

describe('native bits per weight from config.json', () => {
  const table: [string, Record<string, unknown> | undefined, number | null][] = [
    ['no config', undefined, null],
    ['16-bit weights', { torch_dtype: 'bfloat16' }, null],
    ['gpt-oss MXFP4', gptOss20b, 4.25],
    ['DeepSeek-V3 block FP8', deepSeekV3, 8],
    ['AWQ 4-bit group 128', { quantization_config: { quant_method: 'awq', bits: 4, group_size: 128 } }, 4.125],
    ['GPTQ 4-bit per channel', { quantization_config: { quant_method: 'gptq', bits: 4, group_size: -1 } }, 4],
    ['GPTQ 3-bit group 32', { quantization_config: { quant_method: 'gptq', bits: 3, group_size: 32 } }, 3.5],
    [
      'bitsandbytes 4-bit',
      { quantization_config: { quant_method: 'bitsandbytes', load_in_4bit: true, bnb_4bit_quant_type: 'nf4' } },
      4.127,
    ],
    ['bitsandbytes 8-bit', { quantization_config: { quant_method: 'bitsandbytes', load_in_8bit: true } }, 8],
    [
      'compressed-tensors W4A16 group 128',
      {
        quantization_config: {
          quant_method: 'compressed-tensors',
          format: 'pack-quantized',
          config_groups: { group_0: { targets: ['Linear'], weights: { num_bits: 4, type: 'int', strategy: 'group', group_size: 128 } } },
        },
      },
      4.125,
    ],
    [
      'compressed-tensors NVFP4',
      {
        quantization_config: {
          quant_method: 'compressed-tensors',
          config_groups: { group_0: { weights: { num_bits: 4, type: 'float', strategy: 'tensor_group', group_size: 16 } } },
        },
      },
      4.5,
    ],
    [
      'compressed-tensors FP8 per channel',
      {
        quantization_config: {
          quant_method: 'compressed-tensors',
          config_groups: { group_0: { weights: { num_bits: 8, type: 'float', strategy: 'channel' } } },
        },
      },
      8,
    ],
    ['ModelOpt NVFP4', { quantization_config: { quant_method: 'modelopt', quant_algo: 'NVFP4' } }, 4.5],
    ['MLX 4-bit group 64', { quantization: { group_size: 64, bits: 4 }, quantization_config: { group_size: 64, bits: 4 } }, 4.5],
    [
      'MLX mixed 3/6 (the lowest width)',
      { quantization: { group_size: 64, bits: 6, 'model.layers.0.mlp.down_proj': { group_size: 64, bits: 3 } } },
      3.5,
    ],
    ['an unknown method', { quantization_config: { quant_method: 'somethingnew', bits: 2 } }, null],
  ];
  for (const [name, config, bits] of table) {
    it(`${name} -> ${bits}`, () => {
      expect(nativeBitsPerWeightFromConfig(config)).to.equal(bits);
    });
  }
});

describe('packed parameter counts', () => {
  it('are recognised by int32/uint32 tensors, a sub-8-bit quantization_config or AWQ/GPTQ tags', () => {
    expect(hasPackedParameterCount(info({ safetensors: { total: 1.9e9, parameters: { I32: 9e8, F16: 1e9 } } }))).to.equal(true);
    expect(hasPackedParameterCount(info({ safetensors: { total: 1.3e9, parameters: { U32: 1e9, BF16: 3e8 } } }))).to.equal(true); // MLX
    expect(
      hasPackedParameterCount(info({ configJson: { quantization_config: { quant_method: 'gptq', bits: 4, group_size: 128 } } })),
    ).to.equal(true);
    expect(
      hasPackedParameterCount(info({ configJson: { quantization_config: { quant_method: 'bitsandbytes', load_in_4bit: true } } })),
    ).to.equal(true);
    expect(hasPackedParameterCount(info({ tags: ['gptq'] }))).to.equal(true);
  });

  it("are recognised from the hub's config summary when config.json is gated", () => {
    const gated = info({
      gated: 'manual',
      config: { model_type: 'llama', quantization_config: { quant_method: 'gptq', bits: 4, group_size: 128 } },
      safetensors: { total: 1.9e9 },
    });
    expect(hasPackedParameterCount(gated)).to.equal(true);
    expect(catalogueEntryFromHub(gated, 'org/Secret-8B-GPTQ')).to.include({
      params: 8,
      paramsApproximate: true,
      nativeBitsPerWeight: 4.125,
    });
    const fp8 = info({
      gated: 'manual',
      config: { model_type: 'llama4', quantization_config: { quant_method: 'fbgemm_fp8' } },
      safetensors: { total: 401e9 },
    });
    expect(catalogueEntryFromHub(fp8, 'meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8')).to.include({
      params: 401,
      nativeBitsPerWeight: 8,
      activeParams: 17,
    });
  });

  it('are not assumed for 16-bit, FP8 or INT8 weights', () => {
    expect(hasPackedParameterCount(info({ safetensors: { total: 7e9, parameters: { BF16: 7e9 } } }))).to.equal(false);
    expect(
      hasPackedParameterCount(
        info({
          safetensors: { total: 7e9, parameters: { F8_E4M3: 6e9, BF16: 1e9 } },
          configJson: { quantization_config: { quant_method: 'fp8' } },
        }),
      ),
    ).to.equal(false);
    expect(
      hasPackedParameterCount(info({ configJson: { quantization_config: { quant_method: 'bitsandbytes', load_in_8bit: true } } })),
    ).to.equal(false);
  });

  it('fall back to the curated total, else the size in the name (approximate), when the repo has no base', () => {
    const packed = { safetensors: { total: 2.9e9, parameters: { I32: 2.3e9, BF16: 6e8 } } };
    expect(catalogueEntryFromHub(info(packed), 'someone/Qwen3-30B-A3B-AWQ')).to.include({
      params: 30.5,
      paramsApproximate: false,
      activeParams: 3,
      isMoE: true,
    });
    expect(catalogueEntryFromHub(info(packed), 'someone/Llama-3.1-8B-Instruct-AWQ')).to.include({ params: 8, paramsApproximate: true });
    expect(catalogueEntryFromHub(info(packed), 'someone/secret-model-awq')).to.include({ params: null, paramsApproximate: false });
  });
});

describe('curated model facts', () => {
  it('every row has a source, an active count below its total, and native bits under 16 when set', () => {
    for (const row of CURATED_MODELS) {
      expect(row.source, row.name).to.be.a('string').with.length.above(20);
      expect(row.activeB, row.name).to.be.above(0).and.below(row.totalB);
      if (row.nativeBitsPerWeight !== null) expect(row.nativeBitsPerWeight, row.name).to.be.above(1).and.below(16);
    }
  });

  it('matches the repo name, then the base name, then the family with a total within 10%', () => {
    expect(curatedModelFacts('unsloth/gpt-oss-20b-GGUF', null, null)?.name).to.equal('gpt-oss-20b');
    expect(curatedModelFacts('lmstudio-community/gpt-oss-120b-MLX-8bit', null, null)?.name).to.equal('gpt-oss-120b');
    expect(curatedModelFacts('me/my-chat-model', 'openai/gpt-oss-120b', null)?.name).to.equal('gpt-oss-120b');
    expect(curatedModelFacts('me/my-chat-model', null, 'gpt_oss', 21.5)?.name).to.equal('gpt-oss-20b');
    expect(curatedModelFacts('me/my-chat-model', null, 'gpt_oss', 60)).to.equal(null);
    expect(curatedModelFacts('me/my-chat-model', null, 'gpt_oss')).to.equal(null);
    expect(curatedModelFacts('unsloth/Llama-4-Scout-17B-16E-Instruct-GGUF', null, null)).to.include({ totalB: 109, activeB: 17 });
    expect(curatedModelFacts('bartowski/Mixtral-8x22B-v0.1-GGUF', null, null)).to.include({ totalB: 141, activeB: 39 });
  });

  it("keeps a model's own size when it contradicts the row: an upscaled merge, or a small model that names a curated one as its base", () => {
    expect(curatedModelFacts('someone/gpt-oss-20b-upscaled', null, null, 40)).to.equal(null);
    expect(curatedModelFacts('someone/gpt-oss-20b-AWQ', null, null, 4.2)?.name).to.equal('gpt-oss-20b'); // a packed count
    expect(curatedModelFacts('someone/tiny-student', 'openai/gpt-oss-20b', null, 3.2)).to.equal(null);
    expect(curatedModelFacts('someone/oss-chat', 'openai/gpt-oss-20b', null, 20.9)?.name).to.equal('gpt-oss-20b');
    // A known exact total also bounds the active count.
    const student = catalogueEntryFromHub(
      info({ safetensors: { total: 3.2e9 }, cardData: { base_model: 'openai/gpt-oss-20b' } }),
      'someone/gpt-oss-20b-distilled-3B',
    );
    expect(student).to.include({ params: 3.2, activeParams: 3.2 });
  });

  it('tells DeepSeek V3 / R1 from the dense models distilled from them, and GLM-4.5-Air from GLM-4.5', () => {
    for (const id of [
      'deepseek-ai/DeepSeek-V3',
      'deepseek-ai/DeepSeek-R1-0528',
      'unsloth/DeepSeek-V3.1-GGUF',
      'deepseek-ai/DeepSeek-V3.2-Exp',
      'unsloth/DeepSeek-R1-GGUF',
    ]) {
      expect(curatedModelFacts(id, null, null), id).to.include({ totalB: 671, activeB: 37, nativeBitsPerWeight: 8 });
    }
    for (const id of [
      'deepseek-ai/DeepSeek-R1-Distill-Llama-8B',
      'deepseek-ai/DeepSeek-R1-Distill-Qwen-32B',
      'deepseek-ai/DeepSeek-R1-0528-Qwen3-8B',
    ]) {
      expect(curatedModelFacts(id, null, null), id).to.equal(null);
    }
    expect(curatedModelFacts('zai-org/GLM-4.5-Air-FP8', null, null)).to.include({ totalB: 106, activeB: 12 });
    expect(curatedModelFacts('zai-org/GLM-4.6', null, null)).to.include({ totalB: 355, activeB: 32 });
    expect(curatedModelFacts('zai-org/GLM-4.5V', null, null)).to.equal(null);
    expect(curatedModelFacts('moonshotai/Kimi-K2-Thinking', null, null)).to.include({ nativeBitsPerWeight: 4.5 });
    expect(curatedModelFacts('moonshotai/Kimi-K2-Instruct-0905', null, null)).to.include({ nativeBitsPerWeight: 8 });
  });
});

describe('catalogue facts (entry + catalogued base)', () => {
  const entry = (fields: Partial<CatalogueEntry>): CatalogueEntry => ({
    hfId: 'me/Child',
    displayName: 'Child',
    family: null,
    params: null,
    paramsApproximate: false,
    activeParams: null,
    isMoE: false,
    nativeBitsPerWeight: null,
    base: null,
    hubSha: null,
    gated: false,
    ...fields,
  });
  const moeBase = { params: 46.7, params_approximate: false, active_params: 12.75, is_moe: true, native_bits_per_weight: 8 };

  it("gives a quantization its base's params, MoE flag, active count and native bits", () => {
    expect(catalogueFacts(entry({ base: { hfId: 'org/Base', relation: 'quantized' } }), moeBase)).to.deep.equal({
      params: 46.7,
      paramsApproximate: false,
      isMoE: true,
      activeParams: 12.75,
      nativeBitsPerWeight: 8,
    });
  });

  it('does not pass native bits to a finetune, which is usually saved in 16 bits', () => {
    expect(catalogueFacts(entry({ base: { hfId: 'org/Base', relation: 'finetune' }, isMoE: true }), moeBase)).to.include({
      params: 46.7,
      activeParams: 12.75,
      nativeBitsPerWeight: null,
    });
  });

  it('takes the lowest active count and native bits of entry, base and curated table', () => {
    const facts = catalogueFacts(
      entry({ hfId: 'me/gpt-oss-20b-F16', params: 20.91, isMoE: true, activeParams: 3.5, nativeBitsPerWeight: 16 }),
      undefined,
    );
    expect(facts).to.include({ params: 20.91, isMoE: true, activeParams: 3.5, nativeBitsPerWeight: 4.25 });
  });

  it('falls back to the curated total, then the name, without a base row', () => {
    expect(
      catalogueFacts(
        entry({ hfId: 'me/Mixtral-8x7B-AWQ', base: { hfId: 'mistralai/Mixtral-8x7B-v0.1', relation: 'quantized' } }),
        undefined,
      ),
    ).to.include({
      params: 46.7,
      paramsApproximate: false,
      isMoE: true,
      activeParams: 12.9,
    });
    expect(
      catalogueFacts(entry({ hfId: 'me/Dense-13B-AWQ', base: { hfId: 'org/Dense-13B', relation: 'quantized' } }), undefined),
    ).to.include({ params: 13, paramsApproximate: true, isMoE: false, activeParams: null });
  });

  it('keeps the native bits out of the public entry', () => {
    expect(publicCatalogueEntry(entry({ nativeBitsPerWeight: 4.25 }))).to.not.have.property('nativeBitsPerWeight');
  });
});
