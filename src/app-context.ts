import { createHubClient, createOfflineHubClient, type HubClient } from './clients/hub.ts';
import type { Config } from './config.ts';
import { createDatabaseHealth, type DatabaseHealth } from './db/health.ts';
import type { Db } from './db/knex.ts';
import { systemClock, type Clock } from './lib/clock.ts';
import type { Logger } from './logger.ts';
import { apiDocuments, type ApiDocuments } from './openapi/documents.ts';
import { getRevisionProfile, type RevisionProfile } from './revisions.ts';
import { createServices, type Services } from './services/index.ts';

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
}

/**
 * The profile, hub and clock default to the configured revision, the configured hub and the
 * system clock; the database health is always built on `db`.
 */
export type AppDepsInput = Omit<AppDeps, 'profile' | 'hub' | 'clock' | 'databaseHealth'> & Partial<Pick<AppDeps, 'profile' | 'hub' | 'clock'>>;

/** The deps plus every service built on them: what routes and controllers are given. */
export interface AppContext extends AppDeps {
  services: Services;
  /** The generated API documents of this revision (OpenAPI, agent-context), built once per base URL. */
  documents: ApiDocuments;
}

function defaultHub(config: Config): HubClient {
  return config.hubMode === 'offline'
    ? createOfflineHubClient()
    : createHubClient({ endpoint: config.hfEndpoint, token: config.hfToken });
}

export function createAppContext(input: AppDepsInput): AppContext {
  const deps: AppDeps = {
    ...input,
    profile: input.profile ?? getRevisionProfile(input.config.revision),
    hub: input.hub ?? defaultHub(input.config),
    clock: input.clock ?? systemClock,
    databaseHealth: createDatabaseHealth(input.db, input.logger),
  };
  return { ...deps, services: createServices({ ...deps, hubMode: deps.config.hubMode }), documents: apiDocuments(deps.profile) };
}
