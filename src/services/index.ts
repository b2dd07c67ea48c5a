import { createApiKeysService } from './api-keys.service.ts';
import { createAuditService } from './audit.service.ts';
import type { ServiceDeps } from './deps.ts';
import type { ExecutionDeps } from './execution-runtime.ts';
import { createExecutionsService } from './executions.service.ts';
import { createHardwareService } from './hardware.service.ts';
import { createImagesService } from './images.service.ts';
import { createLeaderboardService } from '../runs/reads/leaderboard.service.ts';
import { createMarketplaceService } from './marketplace.service.ts';
import { createModelsService } from './models.service.ts';
import { createModerationService } from '../runs/submission/moderation.service.ts';
import { createProfilesService } from './profiles.service.ts';
import { createQualityPagesService } from './quality-pages.service.ts';
import { createQualityReviewService } from './quality-review.service.ts';
import { createQualityRunsService } from './quality-runs.service.ts';
import { createQualitySuitesService } from './quality-suites.service.ts';
import { createReactionsService } from './reactions.service.ts';
import type { ReportCardRenderer } from './report-cards.service.ts';
import { createReportsService } from './reports.service.ts';
import { createSetupsService } from './setups.service.ts';
import { createSpeedTestContextService } from '../runs/reads/context.service.ts';
import { createSpeedTestOwnersService } from '../runs/submission/owners.service.ts';
import { createSpeedTestsService } from '../runs/submission/speed-tests.service.ts';
import { createUsersService } from './users.service.ts';

export type { ServiceDeps } from './deps.ts';

/**
 * Every service of the app, built once from its dependencies (`createApp` does it). Controllers
 * reach services only through this container; a service that must join another's transaction
 * builds that one on the transaction itself (`createXService({ ...deps, db: trx })`).
 * Work outside requests (start-up, the housekeeping timer, the CLI) builds the one service
 * it needs from its database. What services need from the pages (the report cards' renderer)
 * is built in the web layer and passed in here, so no service imports upwards.
 */
export function createServices(deps: ServiceDeps & { execution: ExecutionDeps; publicUrl: string; reportCardRenderer: ReportCardRenderer }) {
  return {
    executions: createExecutionsService(deps),
    apiKeys: createApiKeysService(deps),
    audit: createAuditService(deps),
    hardware: createHardwareService(deps),
    images: createImagesService(deps),
    leaderboard: createLeaderboardService(deps),
    marketplace: createMarketplaceService(deps),
    models: createModelsService(deps),
    moderation: createModerationService(deps),
    profiles: createProfilesService(deps),
    qualityPages: createQualityPagesService(deps),
    qualityReview: createQualityReviewService(deps),
    qualityRuns: createQualityRunsService(deps),
    qualitySuites: createQualitySuitesService(deps),
    reactions: createReactionsService(deps),
    reports: createReportsService(deps),
    setups: createSetupsService(deps),
    speedTests: createSpeedTestsService(deps),
    speedTestOwners: createSpeedTestOwnersService(deps),
    speedTestContext: createSpeedTestContextService(deps),
    users: createUsersService(deps),
  };
}

export type Services = ReturnType<typeof createServices>;
