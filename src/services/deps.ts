import type { HubClient } from '../clients/hub.ts';
import type { Db } from '../db/knex.ts';
import type { Clock } from '../lib/clock.ts';
import type { RunReadIndex } from '../runs/read-index/read-index.ts';
import type { RevisionProfile } from '../revisions.ts';

/**
 * What services are built from. Every service is `createXService(deps)` taking the part of
 * these it needs; `db` may be a transaction, so a service built on one (`{ ...deps, db: trx }`)
 * takes part in the caller's transaction.
 */
export interface ServiceDeps {
  db: Db;
  profile: RevisionProfile;
  clock: Clock;
  /** The upstream model hub (a fake one on loopback in tests). */
  hub: HubClient;
  /** `offline`: only models already in the catalogue are accepted. */
  hubMode: 'online' | 'offline';
  /**
   * The app's in-process read index of approved runs (src/runs/read-index): the leaderboard and
   * the results list answer from it when it is ready; a write it shows goes through
   * `writeVisibly` (visible-writes.ts), which waits on its `caughtUp()` after the commit so the
   * change is visible when the writer answers. Absent outside the app (CLI, seeds).
   */
  readIndex?: RunReadIndex;
}
