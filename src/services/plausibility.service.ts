import { runVerdict, verdictColumns } from '../lib/speed-test-verdict.ts';
import type { ServiceDeps } from './deps.ts';

export function createPlausibilityService({ db }: Pick<ServiceDeps, 'db'>) {
  return {
    /**
     * Re-judges stored runs (all, or those of some models) after the inputs changed: a
     * model's size became known, or the catalogue or bits table was updated.
     */
    async recompute(modelIds?: string[]): Promise<number> {
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
          .select('r.id', 'r.tok_s_out', 'r.batch_size', 'r.quantization', 'r.engine_flags', 'm.params', 'm.active_params', 'm.is_moe', 'h.details')
          // Read by name from the row: an older migration recomputes before this column exists.
          .select(db.raw("(to_jsonb(m) ->> 'native_bits_per_weight')::float8 as native_bits_per_weight"));
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
    },
  };
}
