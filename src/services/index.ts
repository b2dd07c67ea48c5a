import { createOfflineHubClient } from '../clients/hub.ts';
import type { Db } from '../db/knex.ts';
import { systemClock, type Clock } from '../lib/clock.ts';
import type { RevisionProfile } from '../revisions.ts';
import { createSpeedTestContextService } from '../runs/reads/context.service.ts';
import { createLeaderboardService } from '../runs/reads/leaderboard.service.ts';
import { createResultsListReads } from '../runs/reads/results-list.ts';
import { createSpeedTestReads } from '../runs/reads/speed-test-reads.ts';
import { createModerationService } from '../runs/submission/moderation.service.ts';
import { createSpeedTestOwnersService } from '../runs/submission/owners.service.ts';
import { createPlausibilityService } from '../runs/submission/plausibility.service.ts';
import { createSpeedTestsService, createSpeedTestWriter } from '../runs/submission/speed-tests.service.ts';
import { createReplicationsService } from '../runs/reads/replications.service.ts';
import { createApiKeysService } from './api-keys.service.ts';
import { createAuditService } from './audit.service.ts';
import type { ServiceDeps, TransactionServices } from './deps.ts';
import type { ExecutionDeps } from './execution-runtime.ts';
import { createExecutionsService } from './executions.service.ts';
import { createHardwareService } from './hardware.service.ts';
import { createHardwareNamesService } from './hardware-names.service.ts';
import { createHousekeepingService } from './housekeeping.service.ts';
import { createIdempotencyService } from './idempotency.service.ts';
import { createImageDelivery, createImagesService, type ImageDelivery } from './images.service.ts';
import { createStorageService } from './storage.service.ts';
import { createDeviceLoginsService } from './device-logins.service.ts';
import { createMarketplaceService } from './marketplace.service.ts';
import { createModelsService } from './models.service.ts';
import { createPredictionsService } from './predictions.service.ts';
import { createProfilesService } from './profiles.service.ts';
import { createQualityPagesService } from './quality-pages.service.ts';
import { createQualityReviewService } from './quality-review.service.ts';
import { createQualityRunsService, createQualityRunWriter } from './quality-runs.service.ts';
import { createQualitySuitesService } from './quality-suites.service.ts';
import { createRateLimitService } from './rate-limit.service.ts';
import { createReactionsService } from './reactions.service.ts';
import { createReportCardsService, type ReportCardRenderer } from './report-cards.service.ts';
import { createReportsService } from './reports.service.ts';
import { createSetupsService } from './setups.service.ts';
import { createSubmissionWindowService } from './submission-window.service.ts';
import { createUsersService } from './users.service.ts';

export type { ServiceDeps } from './deps.ts';

/**
 * The services a transaction's writes use, built on `deps.db` (the container's, or a
 * transaction); `imageDelivery` is the container's one image cache and read queue.
 */
function transactionServices(deps: ServiceDeps, imageDelivery: ImageDelivery): TransactionServices {
  const plausibility = createPlausibilityService(deps);
  return {
    audit: createAuditService(deps),
    images: createImagesService({ ...deps, delivery: imageDelivery }),
    plausibility,
    models: createModelsService({ ...deps, plausibility }),
    windows: createSubmissionWindowService(deps),
    reads: createSpeedTestReads(deps),
    runWriter: createSpeedTestWriter(deps),
    qualityRunWriter: createQualityRunWriter(deps),
  };
}

/**
 * The services that need nothing beyond `ServiceDeps`, each built once with the services it
 * uses passed in. Work outside requests (start-up, the CLI, seeds, tests) uses this too.
 */
export function createCoreServices(deps: ServiceDeps) {
  const imageDelivery = createImageDelivery();
  const withTransaction = (trx: Db) => transactionServices({ ...deps, db: trx }, imageDelivery);
  const { audit, images, models, plausibility, windows, reads } = transactionServices(deps, imageDelivery);
  const transactional = { ...deps, withTransaction };
  const idempotency = createIdempotencyService(deps);
  const submissions = { ...transactional, idempotency, windows };
  const rateLimits = createRateLimitService(deps);
  const users = createUsersService({ ...transactional, rateLimits });
  const apiKeys = createApiKeysService(transactional);
  const leaderboard = createLeaderboardService({ ...deps, reads });
  const replications = createReplicationsService(deps);
  return {
    apiKeys,
    deviceLogins: createDeviceLoginsService({ ...deps, apiKeys, rateLimits }),
    audit,
    hardware: createHardwareService({ ...deps, reads }),
    hardwareNames: createHardwareNamesService(transactional),
    housekeeping: createHousekeepingService(deps),
    images,
    leaderboard,
    marketplace: createMarketplaceService(transactional),
    models,
    moderation: createModerationService({ ...transactional, reads, audit }),
    plausibility,
    predictions: createPredictionsService({ ...deps, models }),
    profiles: createProfilesService({ ...deps, reads, users }),
    reads,
    replications,
    qualityPages: createQualityPagesService(deps),
    rateLimits,
    qualityReview: createQualityReviewService(transactional),
    qualityRuns: createQualityRunsService({ ...submissions, models }),
    qualitySuites: createQualitySuitesService(deps),
    reactions: createReactionsService(deps),
    setups: createSetupsService(deps),
    speedTests: createSpeedTestsService({
      ...submissions,
      models,
      reads,
      replications,
      resultsList: createResultsListReads({ ...deps, reads }),
    }),
    speedTestOwners: createSpeedTestOwnersService({ ...transactional, models, reads, replications }),
    speedTestContext: createSpeedTestContextService({ ...deps, reads }),
    storage: createStorageService(deps),
    users,
    withTransaction,
  };
}

/**
 * Every service of the app, built once from its dependencies (`createApp` does it). Controllers
 * reach services only through this container. What services need from the pages (the report
 * cards' renderer) is built in the web layer and passed in here, so no service imports upwards.
 */
export function createServices(
  deps: ServiceDeps & { execution: ExecutionDeps; publicUrl: string; publicUrlConfigured: boolean; reportCardRenderer: ReportCardRenderer },
) {
  const core = createCoreServices(deps);
  const { leaderboard, models, rateLimits, reads, withTransaction } = core;
  const cards = createReportCardsService({ ...deps, leaderboard, models, reads });
  return {
    ...core,
    executions: createExecutionsService({ ...deps, models, rateLimits }),
    reports: createReportsService({ ...deps, withTransaction, cards, reads, images: core.images, models }),
  };
}

/**
 * The core services on a database alone, for work outside requests (start-up, the CLI,
 * seeds): the hub offline (only catalogued models) and no read index.
 */
export function createOfflineServices(db: Db, profile: RevisionProfile, clock: Clock = systemClock) {
  return createCoreServices({ db, profile, clock, hub: createOfflineHubClient(), hubMode: 'offline' });
}

export type Services = ReturnType<typeof createServices>;
