import type { Db } from '../../db/knex.ts';
import type { NormalisedSpeedTest } from './normalise.ts';
import { deviceKeyOf } from './verdict.ts';
import { hardwareSearchText } from './run-facts.ts';

/** Profiles read per statement. */
const BATCH = 1000;

/**
 * Rewrites what hardware profiles (all, or some) and their runs keep of the names' resolution,
 * where it no longer says what the resolver says now: the `hardware_search` text
 * (`hardwareSearchText`) and the `recipe_device_key` replications group on (`deviceKeyOf`), after
 * the resolution of a name changed (an admin's mapping, a new catalogue, the backfill of the
 * catalogue names). Only changed rows are written. Returns the ids of the profiles that changed.
 */
export async function refreshHardwareSearch(db: Db, profileIds?: readonly string[]): Promise<string[]> {
  const changed: string[] = [];
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    // Read by name from the row: an older migration refreshes before `recipe_device_key` exists.
    const rows: {
      id: string;
      details: NormalisedSpeedTest['hardware'];
      hardware_search: string | null;
      recipe_device_key?: string | null;
    }[] = await db('hardware_profiles')
      .modify((q) => {
        if (profileIds) q.whereIn('id', profileIds);
      })
      .where('id', '>', after)
      .orderBy('id')
      .limit(BATCH)
      .select('*');
    if (rows.length === 0) return changed;
    const keyed = 'recipe_device_key' in rows[0]!;
    const updates = rows.flatMap((row) => {
      const [text, key] = [hardwareSearchText(row.details), keyed ? deviceKeyOf(row.details) : null];
      return text === row.hardware_search && key === (row.recipe_device_key ?? null) ? [] : [{ id: row.id, text, key }];
    });
    if (updates.length > 0) {
      const values = JSON.stringify(updates);
      const set = keyed ? 'hardware_search = v.text, recipe_device_key = v.key' : 'hardware_search = v.text';
      const current = keyed ? '(r.hardware_search, r.recipe_device_key)' : 'r.hardware_search';
      const wanted = keyed ? '(v.text, v.key)' : 'v.text';
      await db.raw(
        `update hardware_profiles h set ${set}
           from jsonb_to_recordset(?::jsonb) as v(id uuid, text text, key text) where h.id = v.id`,
        [values],
      );
      await db.raw(
        `update speed_test_runs r set ${set}
           from jsonb_to_recordset(?::jsonb) as v(id uuid, text text, key text)
          where r.hardware_id = v.id and ${current} is distinct from ${wanted}`,
        [values],
      );
      changed.push(...updates.map((update) => update.id));
    }
    after = rows.at(-1)!.id;
  }
}
