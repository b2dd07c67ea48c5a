import type { Db } from '../../db/knex.ts';
import type { NormalisedSpeedTest } from './normalise.ts';
import { hardwareSearchText } from './run-facts.ts';

/** Profiles read per statement. */
const BATCH = 1000;

/**
 * Rewrites the `hardware_search` text of hardware profiles (all, or some) and of their runs
 * where it no longer says what `hardwareSearchText` says now: after the resolution of a name
 * changed (an admin's mapping, a new catalogue, the backfill of the catalogue names). Only
 * changed rows are written. Returns the ids of the profiles whose text changed.
 */
export async function refreshHardwareSearch(db: Db, profileIds?: readonly string[]): Promise<string[]> {
  const changed: string[] = [];
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const rows: { id: string; details: NormalisedSpeedTest['hardware']; hardware_search: string | null }[] = await db('hardware_profiles')
      .modify((q) => {
        if (profileIds) q.whereIn('id', profileIds);
      })
      .where('id', '>', after)
      .orderBy('id')
      .limit(BATCH)
      .select('id', 'details', 'hardware_search');
    if (rows.length === 0) return changed;
    const updates = rows.flatMap((row) => {
      const text = hardwareSearchText(row.details);
      return text === row.hardware_search ? [] : [{ id: row.id, text }];
    });
    if (updates.length > 0) {
      const values = JSON.stringify(updates);
      await db.raw(
        `update hardware_profiles h set hardware_search = v.text
           from jsonb_to_recordset(?::jsonb) as v(id uuid, text text) where h.id = v.id`,
        [values],
      );
      await db.raw(
        `update speed_test_runs r set hardware_search = v.text
           from jsonb_to_recordset(?::jsonb) as v(id uuid, text text)
          where r.hardware_id = v.id and r.hardware_search is distinct from v.text`,
        [values],
      );
      changed.push(...updates.map((update) => update.id));
    }
    after = rows.at(-1)!.id;
  }
}
