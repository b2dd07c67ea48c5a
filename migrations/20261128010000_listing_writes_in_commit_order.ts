import type { Knex } from 'knex';

/**
 * The feed pages through ACTIVE listings by (updated_at, id), so a client that has read up
 * to some updated_at must never later find a listing committed with an earlier one. A
 * timestamp taken during a transaction that commits after a later-stamped one breaks that:
 * the client reads the later row, moves its cursor past the earlier stamp, and never sees
 * the earlier row. Listing writes therefore take one transaction-level advisory lock before
 * their timestamp and hold it until commit: stamps follow commit order. Listing writes are
 * human-paced (sellers, admins, a proof run changing status), so serialising them costs
 * nothing that matters.
 *
 * Every writer takes the lock before it locks any listing row and before it stamps (the
 * marketplace service at the start of its transaction, the proof-run trigger below before
 * its update), so two writers cannot wait on each other.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create function marketplace_listing_writes_lock() returns void language sql as $$
      select pg_advisory_xact_lock(hashtext('marketplace_listing_writes'))
    $$`);
  // The proof-run trigger (20261127010200): lock first, and only when the run is some listing's proof.
  await knex.raw(`
    create or replace function marketplace_listings_follow_runs() returns trigger language plpgsql as $$
    begin
      if exists (select 1 from marketplace_listing_runs where run_id = new.id) then
        perform marketplace_listing_writes_lock();
        update marketplace_listings set updated_at = clock_timestamp()
          where id in (select listing_id from marketplace_listing_runs where run_id = new.id);
      end if;
      return null;
    end $$`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    create or replace function marketplace_listings_follow_runs() returns trigger language plpgsql as $$
    begin
      update marketplace_listings set updated_at = clock_timestamp()
        where id in (select listing_id from marketplace_listing_runs where run_id = new.id);
      return null;
    end $$`);
  await knex.raw('drop function marketplace_listing_writes_lock()');
}
