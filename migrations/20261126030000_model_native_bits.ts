import type { Knex } from 'knex';

/**
 * Plausibility v2 (issue 16): a model's native bits per weight (gpt-oss experts are MXFP4
 * and DeepSeek V3 is FP8 whatever a run's label says), which cap the bits the decode-speed
 * roofline reads from a run's quantization label. Rows catalogued before are filled from the
 * curated table of common MoE families at the next start, with their runs re-judged
 * (`plausibility.rejudgeIfRulesChanged`: the table is part of the rules' fingerprint), so a
 * later change of the table reaches old rows the same way and this migration stays frozen.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('models', (t) => {
    t.double('native_bits_per_weight');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('models', (t) => {
    t.dropColumn('native_bits_per_weight');
  });
}
