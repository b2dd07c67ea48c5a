import type { HubClient } from '../clients/hub.ts';
import type { Db } from '../db/knex.ts';
import type { Clock } from '../lib/clock.ts';
import type { RunReadIndex } from '../runs/read-index/read-index.ts';
import type { RevisionProfile } from '../revisions.ts';
import type { SpeedTestReads } from '../runs/reads/speed-test-reads.ts';
import type { PlausibilityService } from '../runs/submission/plausibility.service.ts';
import type { SpeedTestWriter } from '../runs/submission/speed-tests.service.ts';
import type { AuditService } from './audit.service.ts';
import type { ImagesService } from './images.service.ts';
import type { ModelsService } from './models.service.ts';
import type { QualityRunWriter } from './quality-runs.service.ts';
import type { SubmissionWindowService } from './submission-window.service.ts';

/**
 * What services are built from. Every service is `createXService(deps)` taking the part of
 * these it needs, and the other services it uses by name (`{ models, reads, ... }`): the
 * container (src/services/index.ts) builds each once and passes it in, so a factory's
 * signature shows what the service uses.
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

/**
 * The services whose work joins a caller's transaction, built on that transaction. A
 * service gets them through `withTransaction(trx)`, the container's one place that builds
 * services on a transaction, never by constructing them itself.
 */
export interface TransactionServices {
  audit: AuditService;
  images: ImagesService;
  models: ModelsService;
  plausibility: PlausibilityService;
  windows: SubmissionWindowService;
  reads: SpeedTestReads;
  runWriter: SpeedTestWriter;
  qualityRunWriter: QualityRunWriter;
}

export interface Transactional {
  /** The transaction-bound services of `trx` (a transaction of this deps' database). */
  withTransaction(trx: Db): TransactionServices;
}
