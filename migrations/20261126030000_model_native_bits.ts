import type { Knex } from 'knex';
import { fillCuratedModelFacts } from '../src/services/models.service.ts';

/**
 * Plausibility v2 (issue 16): a model's native bits per weight (gpt-oss experts are MXFP4
 * and DeepSeek V3 is FP8 whatever a run's label says), which cap the bits the decode-speed
 * roofline reads from a run's quantization label. Rows catalogued before are filled from the
 * curated table of common MoE families (active count, native bits, published total where
 * the stored one is missing, guessed or packed); their runs' verdicts are recomputed by
 * `createPlausibilityService({ db }).recompute(ids)` with the ids `fillCuratedModelFacts` returns.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('models', (t) => {
    t.double('native_bits_per_weight');
  });
  await fillCuratedModelFacts(knex);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('models', (t) => {
    t.dropColumn('native_bits_per_weight');
  });
}
