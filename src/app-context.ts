import { createHubClient, createOfflineHubClient, type HubClient } from './clients/hub.ts';
import { createOutboundClient, type OutboundClient } from './clients/outbound.ts';
import { createUrlSigner, type UrlSigner } from './lib/signed-urls.ts';
import type { Config } from './config.ts';
import { createDatabaseHealth, type DatabaseHealth } from './db/health.ts';
import type { Db } from './db/knex.ts';
import { systemClock, type Clock } from './lib/clock.ts';
import type { Logger } from './logger.ts';
import { apiDocuments, type ApiDocuments } from './openapi/documents.ts';
import { noReadIndex, ReadIndexKeeper } from './runs/read-index/read-index.ts';
import { reloadHardwareMappings } from './services/hardware-names.service.ts';
import { getRevisionProfile, type RevisionProfile } from './revisions.ts';
import { EXECUTE_LIMITS } from './schemas/execute.schema.ts';
import { DEFAULT_EXECUTION_TIMING, ExecutionRuntime, type ExecutionDeps, type ExecutionTiming } from './services/execution-runtime.ts';
import { createServices, type Services } from './services/index.ts';
import { createReportCardRenderer } from './web/report-cards.ts';

/** What an app is built from. */
export interface AppDeps {
  db: Db;
  config: Config;
  logger: Logger;
  profile: RevisionProfile;
  /** The upstream model hub (a fake one in tests). */
  hub: HubClient;
  clock: Clock;
  /** Connection string of `db`, for the session store's own small pool. */
  databaseUrl: string;
  /** Whether `db` is reachable: outages are logged once, not per request. */
  databaseHealth: DatabaseHealth;
  /** The guarded client for requests to users' servers and the judge (one with a fake resolver in tests). */
  outbound: OutboundClient;
  /** Worker loop timings of server-side execution (shortened in tests). */
  executionTiming: ExecutionTiming;
}

/**
 * The profile, hub and clock default to the configured revision, the configured hub and the
 * system clock; the database health is always built on `db`.
 */
export type AppDepsInput = Omit<AppDeps, 'profile' | 'hub' | 'clock' | 'databaseHealth' | 'outbound' | 'executionTiming'> &
  Partial<Pick<AppDeps, 'profile' | 'hub' | 'clock' | 'outbound'>> & { executionTiming?: Partial<ExecutionTiming> };

/** The deps plus every service built on them: what routes and controllers are given. */
export interface AppContext extends AppDeps {
  services: Services;
  /** The generated API documents of this revision (OpenAPI, agent-context), built once per base URL. */
  documents: ApiDocuments;
  /** What server-side executions share: the outbound client, this instance's runtime, the judge. */
  execution: ExecutionDeps;
  /** Whether the outbound client was made here (and so is closed with the app). */
  ownsOutbound: boolean;
  /** This instance's read index (READ_INDEX=on), started and closed with the app; null when off. */
  readIndexKeeper: ReadIndexKeeper | null;
  /** Signs and checks the short-lived URLs of downloads and storage uploads (src/lib/signed-urls.ts). */
  signer: UrlSigner;
}

function defaultHub(config: Config): HubClient {
  return config.hubMode === 'offline' ? createOfflineHubClient() : createHubClient({ endpoint: config.hfEndpoint, token: config.hfToken });
}

export function createAppContext(input: AppDepsInput): AppContext {
  const deps: AppDeps = {
    ...input,
    profile: input.profile ?? getRevisionProfile(input.config.revision),
    hub: input.hub ?? defaultHub(input.config),
    clock: input.clock ?? systemClock,
    databaseHealth: createDatabaseHealth(input.db, input.logger),
    outbound:
      input.outbound ?? createOutboundClient({ allowHosts: input.config.execute.allowHosts, timeoutMs: EXECUTE_LIMITS.requestTimeoutMs }),
    executionTiming: { ...DEFAULT_EXECUTION_TIMING, ...input.executionTiming },
  };
  const execution: ExecutionDeps = {
    outbound: deps.outbound,
    runtime: new ExecutionRuntime(deps.config.execute.workers),
    judge: deps.config.execute.judge,
    timing: deps.executionTiming,
  };
  const readIndexKeeper = deps.config.readIndex.enabled
    ? new ReadIndexKeeper({
        db: deps.db,
        databaseUrl: deps.databaseUrl,
        logger: deps.logger,
        config: deps.config.readIndex,
        reloadHardwareNames: () => reloadHardwareMappings(deps.db),
      })
    : null;
  return {
    ...deps,
    execution,
    ownsOutbound: !input.outbound,
    readIndexKeeper,
    services: createServices({
      ...deps,
      hubMode: deps.config.hubMode,
      execution,
      readIndex: readIndexKeeper ?? noReadIndex,
      publicUrl: deps.config.publicUrl,
      publicUrlConfigured: deps.config.publicUrlConfigured,
      reportCardRenderer: createReportCardRenderer(deps.profile),
    }),
    documents: apiDocuments(deps.profile),
    signer: createUrlSigner(deps.config.sessionSecret),
  };
}
