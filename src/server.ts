import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { createApp } from './app.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { openDatabase } from './db/open.ts';
import { seedDemoCatalogue } from './db/seeds/demo-models.ts';
import { seedDemoListings } from './db/seeds/demo-listings.ts';
import { seedDemoQuality } from './db/seeds/demo-quality.ts';
import { seedDemoReport } from './db/seeds/demo-reports.ts';
import { seedDemoRuns } from './db/seeds/demo-runs.ts';
import { systemClock } from './lib/clock.ts';
import { getRevisionProfile } from './revisions.ts';
import { createLogger, type Logger } from './logger.ts';
import { reloadHardwareMappings } from './services/hardware-names.service.ts';
import { createOfflineServices } from './services/index.ts';

const DRAIN_TIMEOUT_MS = 10_000;
const HOUSEKEEPING_INTERVAL_MS = 15 * 60_000;

export interface RunningServer {
  url: string;
  stop(): Promise<void>;
}

/** config -> database -> migrate -> seed -> listen. */
export async function startServer(config: Config, logger: Logger): Promise<RunningServer> {
  const database = await openDatabase(config, logger);
  const { db } = database;
  // What start-up itself does (the admin account, re-judging, housekeeping), outside requests.
  const startup = createOfflineServices(db, getRevisionProfile(config.revision));
  try {
    await seedDemoCatalogue(db);
    // The embedded quick start gets sample runs so the leaderboard is not empty.
    if (!config.databaseUrl && config.nodeEnv !== 'production') {
      const profile = getRevisionProfile(config.revision);
      const seeded = await seedDemoRuns(db, profile);
      if (seeded.runs > 0) logger.info(seeded, 'seeded demo users and runs');
      const quality = await seedDemoQuality(db, profile, systemClock);
      if (quality.runs > 0) logger.info(quality, 'seeded demo quality suites and runs');
      const market = await seedDemoListings(db, profile, systemClock);
      if (market.listings > 0) logger.info(market, 'seeded demo marketplace listings');
      const reports = await seedDemoReport(db, profile, config.publicUrl, systemClock);
      if (reports.reports > 0) logger.info(reports, 'seeded a demo model report');
    }
    if (config.admin) {
      await startup.users.ensureAdmin(config.admin.username, config.admin.password);
      logger.info({ username: config.admin.username }, 'admin account ensured');
    }
  } catch (error) {
    await database.close();
    throw error;
  }

  // Re-judging below resolves hardware names through the admins' mappings.
  await reloadHardwareMappings(db);
  const app = createApp({ db, config, logger, databaseUrl: database.url });
  // Verdicts judged by rules an earlier deploy applied are re-judged in the background;
  // the pages serve the stored ones meanwhile.
  startup.plausibility.rejudgeIfRulesChanged().then(
    (result) => result.rejudged && logger.info({ changed: result.changed }, 'stored runs judged by the current plausibility rules'),
    (error) => logger.warn({ err: error }, 're-judging stored runs failed; it is tried again at the next start'),
  );
  // Old rate-limit counters and idempotency keys only take space; clear them now and then.
  const { pruneExpired } = startup.housekeeping;
  const housekeeping = setInterval(() => {
    pruneExpired(new Date()).then(
      (pruned) => logger.debug(pruned, 'pruned expired rows'),
      (error) => logger.warn({ err: error }, 'pruning expired rows failed'),
    );
  }, HOUSEKEEPING_INTERVAL_MS);
  housekeeping.unref();
  const sockets = new Set<Socket>();
  const server: Server = await new Promise((resolve, reject) => {
    const s = app.listen(config.port, () => resolve(s));
    s.once('error', reject);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      // Stop accepting, let in-flight requests finish (10 s cap), then close the rest.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Keep-alive connections turn idle as their last response ends; close them as they do.
      const reaper = setInterval(() => server.closeIdleConnections(), 100);
      server.closeIdleConnections();
      const timer = setTimeout(() => {
        logger.warn({ open: sockets.size }, 'drain timeout: closing remaining connections');
        for (const socket of sockets) socket.destroy();
      }, DRAIN_TIMEOUT_MS);
      await closed;
      clearTimeout(timer);
      clearInterval(housekeeping);
      clearInterval(reaper);
      await (app.locals.close as () => Promise<void>)();
      await database.close();
    })());

  return { url: `http://localhost:${port}`, stop };
}

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`Configuration error: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel, undefined, config.logFormat);
  let running: RunningServer;
  try {
    running = await startServer(config, logger);
  } catch (error) {
    logger.fatal({ err: error }, 'start-up failed');
    process.exit(1);
  }
  logger.info({ url: running.url, revision: config.revision }, `listening on ${running.url}`);
  process.stdout.write(`Bench leaderboard (API revision ${config.revision}) is running at ${running.url}\n`);

  const shutdown = (signal: string) => {
    logger.info({ signal }, 'shutting down');
    running.stop().then(
      () => process.exit(0),
      (error) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  stopWhenLauncherExits(shutdown);
}

/**
 * npm does not pass SIGTERM on to the script it runs: it exits and leaves the server
 * (and its embedded database) running. Under `npm start`, a changed parent pid means the
 * launcher is gone, which is taken as the signal to shut down.
 */
function stopWhenLauncherExits(shutdown: (reason: string) => void): void {
  if (!process.env.npm_lifecycle_event) return;
  const launcher = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid !== launcher) {
      clearInterval(timer);
      shutdown('npm exited');
    }
  }, 500);
  timer.unref();
}

// Run only as the entry point (`npm start`), not when tests import startServer.
if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('src/server.ts')) {
  void main();
}
