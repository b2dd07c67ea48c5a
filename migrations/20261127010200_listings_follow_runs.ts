import type { Knex } from 'knex';

/**
 * A listing's proof is its runs as they are now: when a proof run is rejected, withdrawn,
 * restored or corrected, the listings showing it change too. This trigger moves their
 * `updated_at`, so a feed client syncing with `updatedSince` fetches them again.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create function marketplace_listings_follow_runs() returns trigger language plpgsql as $$
    begin
      update marketplace_listings set updated_at = clock_timestamp()
        where id in (select listing_id from marketplace_listing_runs where run_id = new.id);
      return null;
    end $$`);
  await knex.raw(`
    create trigger marketplace_listings_follow_runs after update of status, tok_s_out, model_id, hardware_id on speed_test_runs
      for each row
      when (old.status is distinct from new.status or old.tok_s_out is distinct from new.tok_s_out
        or old.model_id is distinct from new.model_id or old.hardware_id is distinct from new.hardware_id)
      execute function marketplace_listings_follow_runs()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop trigger marketplace_listings_follow_runs on speed_test_runs');
  await knex.raw('drop function marketplace_listings_follow_runs()');
}
