/**
 * What a hardware facet asks of a hardware profile (`hardware_profiles`), said once and read two
 * ways: as SQL for the database (`applyProfileConditions`), and against a copy of the profiles
 * in memory while the read index is ready (`ProfileTable`), so that a filter by hardware name or
 * memory resolves to its profiles with no round trip (issue 37: a first-seen hardware filter
 * cost its request a turn of the event loop behind 32 others).
 *
 * The two readings agree by construction: equality is equality of the stored text, ranges
 * compare the stored double, and a name's words (lower-cased once, in JavaScript, for both) are
 * contained in `hardware_search` or not (`like '%word%'` with the wildcards escaped).
 * `test/api/profile-conditions.test.ts` compares both on the seeded catalogue.
 */
import type { Knex } from 'knex';
import type { Db } from '../db/knex.ts';
import { everyTokenSql } from '../lib/search-tokens.ts';

/** The text columns a facet may match exactly. */
export const PROFILE_TEXT_COLUMNS = ['hw_class', 'os_family', 'gpu_name', 'chip_vendor', 'chip_family', 'chip_variant'] as const;
export type ProfileTextColumn = (typeof PROFILE_TEXT_COLUMNS)[number];

export type ProfileCondition =
  /** The column holds exactly this text. */
  | { column: ProfileTextColumn; equals: string }
  /** Memory in GB in (above, atMost]; no lower bound without `above`. */
  | { column: 'memory_gb'; above?: number; atMost: number }
  /** Every word (already lower case) occurs in the searched names. */
  | { column: 'hardware_search'; containsEvery: readonly string[] };

/** Narrows a `hardware_profiles` query to the profiles meeting every condition. */
export function applyProfileConditions(q: Knex.QueryBuilder, conditions: readonly ProfileCondition[]): void {
  for (const condition of conditions) {
    if ('equals' in condition) q.where(condition.column, condition.equals);
    else if ('atMost' in condition) {
      if (condition.above !== undefined) q.where('memory_gb', '>', condition.above);
      q.where('memory_gb', '<=', condition.atMost);
    } else {
      const { sql, bindings } = everyTokenSql('hardware_search', condition.containsEvery);
      q.whereRaw(sql, bindings);
    }
  }
}

type ProfileRow = { id: string; memory_gb: number | null; hardware_search: string | null } & Record<ProfileTextColumn, string | null>;

/** The catalogue's hardware profiles, as the conditions read them. */
export class ProfileTable {
  static async load(db: Db): Promise<ProfileTable> {
    return new ProfileTable(
      await db('hardware_profiles').select<ProfileRow[]>('id', 'memory_gb', 'hardware_search', ...PROFILE_TEXT_COLUMNS),
    );
  }

  constructor(private readonly rows: readonly ProfileRow[]) {}

  /** The ids of the profiles meeting every condition. */
  matching(conditions: readonly ProfileCondition[]): string[] {
    return this.rows.filter((row) => conditions.every((condition) => meets(row, condition))).map((row) => row.id);
  }
}

/** SQL's reading in JavaScript: a null column meets no condition (`null = x`, `null <= x` and `null like x` are not true). */
function meets(row: ProfileRow, condition: ProfileCondition): boolean {
  if ('equals' in condition) return row[condition.column] === condition.equals;
  if ('atMost' in condition) {
    const gb = row.memory_gb;
    return gb !== null && (condition.above === undefined || gb > condition.above) && gb <= condition.atMost;
  }
  const names = row.hardware_search;
  if (condition.containsEvery.length === 0) return true;
  return names !== null && condition.containsEvery.every((word) => names.includes(word));
}
