import type { Knex } from 'knex';
import { installRunCounts, runCountLayoutV2, runCountLayoutV3 } from '../src/runs/read-models/run-counts.ts';

/**
 * `hardwareName` (and the other hardware filters) resolve to a set of hardware profiles
 * first: 400 profiles rather than a million runs. Profiles keep the facts runs copy
 * (memory for the tier, OS family, the search text, with a trigram index), runs get a
 * ranking index per profile, and the count table counts per profile, alone and paired
 * with each run-level filter, so a total for hardware filters plus one more is a sum
 * over the matching profiles.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('hardware_profiles', (t) => {
    t.double('memory_gb');
    t.string('os_family', 8);
    t.text('hardware_search');
  });
  // Every run of a profile carries the same copies (written from the same helpers).
  await knex.raw(`
    update hardware_profiles h set memory_gb = r.memory_gb, os_family = r.os_family, hardware_search = r.hardware_search
    from (select distinct on (hardware_id) hardware_id, memory_gb, os_family, hardware_search from speed_test_runs order by hardware_id) r
    where r.hardware_id = h.id`);
  await knex.raw('create index hardware_profiles_hardware_search on hardware_profiles using gin (hardware_search gin_trgm_ops)');
  await knex.raw(`create index speed_test_runs_board_hardware on speed_test_runs (hardware_id, tok_s_out desc nulls last, created_at, id)
    where status = 'APPROVED'`);
  await installRunCounts(knex, runCountLayoutV3);
}

export async function down(knex: Knex): Promise<void> {
  await installRunCounts(knex, runCountLayoutV2);
  await knex.raw('drop index if exists speed_test_runs_board_hardware');
  await knex.raw('drop index if exists hardware_profiles_hardware_search');
  await knex.schema.alterTable('hardware_profiles', (t) => {
    t.dropColumn('hardware_search');
    t.dropColumn('os_family');
    t.dropColumn('memory_gb');
  });
}
