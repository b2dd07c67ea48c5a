import type { Db } from '../knex.ts';

/** A catalogue row as the hub would have produced it; `base` names another entry's hfId. */
interface DemoModel {
  hfId: string;
  family: string;
  params: number | null;
  activeParams?: number;
  isMoE?: boolean;
  /** Bits the published weights are stored in (gpt-oss: MXFP4), see models.native_bits_per_weight. */
  nativeBitsPerWeight?: number;
  base?: { hfId: string; relation: 'quantized' | 'finetune' | 'adapter' | 'merge' };
}

// Parameter counts (billions) as the hub's safetensors metadata reports them. Bases come
// before their children so the tree can be linked in one pass.
export const demoModels: readonly DemoModel[] = [
  { hfId: 'meta-llama/Llama-3.1-8B', family: 'llama', params: 8.03 },
  {
    hfId: 'meta-llama/Llama-3.1-8B-Instruct',
    family: 'llama',
    params: 8.03,
    base: { hfId: 'meta-llama/Llama-3.1-8B', relation: 'finetune' },
  },
  {
    hfId: 'NousResearch/Hermes-3-Llama-3.1-8B',
    family: 'llama',
    params: 8.03,
    base: { hfId: 'meta-llama/Llama-3.1-8B', relation: 'finetune' },
  },
  {
    hfId: 'bartowski/Meta-Llama-3.1-8B-Instruct-GGUF',
    family: 'llama',
    params: 8.03,
    base: { hfId: 'meta-llama/Llama-3.1-8B-Instruct', relation: 'quantized' },
  },
  { hfId: 'meta-llama/Llama-3.3-70B-Instruct', family: 'llama', params: 70.6 },
  { hfId: 'Qwen/Qwen2.5-7B', family: 'qwen2', params: 7.62 },
  { hfId: 'Qwen/Qwen2.5-7B-Instruct', family: 'qwen2', params: 7.62, base: { hfId: 'Qwen/Qwen2.5-7B', relation: 'finetune' } },
  { hfId: 'Qwen/Qwen3-8B', family: 'qwen3', params: 8.19 },
  { hfId: 'Qwen/Qwen3-30B-A3B', family: 'qwen3_moe', params: 30.5, activeParams: 3.3, isMoE: true },
  {
    hfId: 'unsloth/Qwen3-30B-A3B-GGUF',
    family: 'qwen3moe',
    params: 30.5,
    activeParams: 3.3,
    isMoE: true,
    base: { hfId: 'Qwen/Qwen3-30B-A3B', relation: 'quantized' },
  },
  { hfId: 'mistralai/Mistral-7B-Instruct-v0.3', family: 'mistral', params: 7.25 },
  { hfId: 'mistralai/Mixtral-8x7B-Instruct-v0.1', family: 'mixtral', params: 46.7, activeParams: 12.9, isMoE: true },
  { hfId: 'google/gemma-3-27b-it', family: 'gemma3', params: 27.4 },
  { hfId: 'microsoft/phi-4', family: 'phi3', params: 14.7 },
  // gpt-oss model card (arXiv:2508.10925), table 1; MoE weights in MXFP4.
  { hfId: 'openai/gpt-oss-20b', family: 'gpt_oss', params: 20.91, activeParams: 3.61, isMoE: true, nativeBitsPerWeight: 4.25 },
  { hfId: 'openai/gpt-oss-120b', family: 'gpt_oss', params: 116.83, activeParams: 5.13, isMoE: true, nativeBitsPerWeight: 4.25 },
  {
    hfId: 'deepseek-ai/DeepSeek-R1-Distill-Llama-8B',
    family: 'llama',
    params: 8.03,
    base: { hfId: 'meta-llama/Llama-3.1-8B', relation: 'finetune' },
  },
];

/** Idempotent: inserts the entries that are missing and links bases; existing rows stay as they are. */
export async function seedDemoCatalogue(db: Db): Promise<void> {
  await db.transaction(async (trx) => {
    for (const model of demoModels) {
      await trx('models')
        .insert({
          hf_id: model.hfId,
          display_name: model.hfId.split('/')[1],
          family: model.family,
          params: model.params,
          active_params: model.activeParams ?? null,
          is_moe: model.isMoE ?? false,
          native_bits_per_weight: model.nativeBitsPerWeight ?? null,
          base_relation: model.base?.relation ?? null,
          base_hf_id: model.base?.hfId ?? null,
        })
        .onConflict()
        .ignore();
    }
    for (const model of demoModels.filter((m) => m.base)) {
      await trx('models')
        .whereRaw('lower(hf_id) = lower(?)', [model.hfId])
        .whereNull('base_model_id')
        .update({ base_model_id: trx('models').select('id').whereRaw('lower(hf_id) = lower(?)', [model.base!.hfId]) });
    }
  });
}
