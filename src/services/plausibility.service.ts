import type { Db } from '../db/knex.ts';
import { memoryBandwidthUpperBoundOf, type HardwareForBandwidth } from '../lib/hardware-lookup.ts';
import { assessPlausibility, type RooflineVerdict } from '../lib/roofline.ts';

/** What the roofline needs to know about one run. */
export interface RunForVerdict {
  tokSOut: number | null;
  batchSize: number;
  quantization: string;
  engineFlags: { concurrency?: number; specDecoding?: boolean; mtpEnabled?: boolean } | null | undefined;
  model: { params: number | null; active_params: number | null; is_moe: boolean };
  hardware: HardwareForBandwidth;
}

/**
 * The decode-speed roofline verdict of a run. The bandwidth is the upper bound over every
 * device the run could have used, so a split model is never held to one card's speed.
 */
export function runVerdict(run: RunForVerdict): RooflineVerdict {
  const flags = run.engineFlags ?? {};
  return assessPlausibility({
    tokSOut: run.tokSOut,
    batchSize: run.batchSize,
    concurrency: flags.concurrency ?? null,
    specDecoding: flags.specDecoding ?? null,
    mtpEnabled: flags.mtpEnabled ?? null,
    quantization: run.quantization,
    paramsB: run.model.params,
    activeParamsB: run.model.active_params,
    isMoE: run.model.is_moe,
    memoryBandwidthGBs: memoryBandwidthUpperBoundOf(run.hardware),
  });
}

export function verdictColumns(verdict: RooflineVerdict) {
  return { plausibility: verdict.plausibility, decode_bound_tok_s: verdict.boundTokS, plausibility_reason: verdict.reason };
}

/**
 * Re-judges stored runs (all, or those of some models) after the inputs changed: a
 * model's size became known, or the catalogue or bits table was updated.
 */
export async function recomputePlausibility(db: Db, modelIds?: string[]): Promise<number> {
  let updated = 0;
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const rows = await db('speed_test_runs as r')
      .join('models as m', 'm.id', 'r.model_id')
      .join('hardware_profiles as h', 'h.id', 'r.hardware_id')
      .modify((q) => {
        if (modelIds) q.whereIn('r.model_id', modelIds);
      })
      .where('r.id', '>', after)
      .orderBy('r.id')
      .limit(1000)
      .select('r.id', 'r.tok_s_out', 'r.batch_size', 'r.quantization', 'r.engine_flags', 'm.params', 'm.active_params', 'm.is_moe', 'h.details');
    if (rows.length === 0) return updated;
    for (const row of rows) {
      const verdict = runVerdict({
        tokSOut: row.tok_s_out,
        batchSize: row.batch_size,
        quantization: row.quantization,
        engineFlags: row.engine_flags,
        model: row,
        hardware: row.details,
      });
      await db('speed_test_runs').where({ id: row.id }).update(verdictColumns(verdict));
    }
    updated += rows.length;
    after = rows.at(-1)!.id;
  }
}
