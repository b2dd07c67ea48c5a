/**
 * The app under load and the load generator (autocannon), plus the ceiling route and an
 * RSS sampler. `startBenchServer` builds the app in the calling process; the benchmark runs
 * it in a process of its own (`spawnBenchServer`, app-process.ts), so the app's thread and
 * memory are not shared with the load generator's.
 */
import { execFileSync, fork } from 'node:child_process';
import { createRequire } from 'node:module';
import http from 'node:http';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import autocannon, { type Result } from 'autocannon';
import type { Express, RequestHandler } from 'express';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createDb, type Db } from '../../src/db/knex.ts';
import { projectRoot } from '../../src/lib/project-root.ts';
import { createLogger } from '../../src/logger.ts';
import { CACHE_HEADER } from '../../src/middleware/read-cache.ts';
import type { AppMemory, AppRequest } from './app-process.ts';

export const CEILING_PATH = '/__bench/ceiling';

export interface Answers {
  /** Non-2xx answers, a few paths per status. */
  failures: Record<string, { count: number; samples: string[] }>;
  /** Answers by their X-Read-Cache header (`hit`, `miss`, or `none` when the answer cache did not look). */
  readCache: Record<string, number>;
  /** Milliseconds from the request's arrival at the app to its answer's end, by that header: where the tail comes from. */
  appMs: Record<string, { p50: number; p99: number; max: number }>;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

export interface BenchServer {
  url: string;
  app: Express;
  db: Db;
  /** Where the ceiling layer sits in the app's router stack, for the report. */
  ceilingPosition: string;
  /** The bytes the ceiling route answers with (set before it is measured). */
  setCeilingBody(body: Buffer): void;
  /** What the HTTP server answered since the last reset. */
  answers(): Answers;
  resetAnswers(): void;
  /** Resolves once no request is in flight (autocannon stops without waiting for its last ones). */
  drained(): Promise<void>;
  close(): Promise<void>;
}

export interface BenchServerOptions {
  databaseUrl: string;
  /** Connection pool size of the app's knex (the server default when undefined). */
  pool?: number;
  /** Extra environment for loadConfig, e.g. a response-cache switch. */
  env?: Record<string, string>;
}

/**
 * The ceiling: a route of the same app that answers a precomputed JSON body from memory.
 * It is registered with `app.get` and then moved from the end of the app's router stack
 * to just before the first mounted router (`/api`), so a request to it passes through
 * exactly the middleware every API request passes through (pino-http, helmet, static,
 * session, body parsers, input check, authenticate, CSRF) and is then answered with
 * `res.send(buffer)` - the same send path `res.json` ends in (ETag included), minus the
 * query work and JSON.stringify.
 */
function installCeiling(app: Express, handler: RequestHandler): string {
  app.get(CEILING_PATH, handler);
  const stack = app.router.stack;
  const layer = stack.pop()!;
  const at = stack.findIndex((l) => l.name === 'router');
  if (at < 0) throw new Error('no mounted router found in the app stack; cannot place the ceiling route');
  stack.splice(at, 0, layer);
  const before = stack.slice(0, at).map((l) => l.name);
  return `layer ${at} of ${stack.length}, after: ${before.join(', ')}`;
}

export async function startBenchServer(options: BenchServerOptions): Promise<BenchServer> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bh-bench-'));
  const config = loadConfig({
    NODE_ENV: 'production',
    PUBLIC_URL: 'http://127.0.0.1',
    // The load comes from one address on purpose: the per-address limits would cap it.
    READ_LIMIT_PER_MINUTE: '0',
    EXPORT_LIMIT_PER_HOUR: '0',
    SESSION_SECRET: 'bench-session-secret-0123456789-abcdefghijklmnop',
    LOG_LEVEL: 'silent',
    HUB_MODE: 'offline',
    DATA_DIR: dataDir,
    DATABASE_URL: options.databaseUrl,
    ...options.env,
  });
  const db = createDb(options.databaseUrl, options.pool ? { max: options.pool } : {});
  const app = createApp({ db, config, logger: createLogger('silent'), databaseUrl: options.databaseUrl });
  let ceilingBody: Buffer = Buffer.from('{}');
  const ceilingPosition = installCeiling(app, (_req, res) => {
    res.type('application/json').send(ceilingBody);
  });

  let answers: Answers = { failures: {}, readCache: {}, appMs: {} };
  let durations: Record<string, number[]> = {};
  let inFlight = 0;
  const server = http.createServer((req, res) => {
    inFlight += 1;
    const arrived = performance.now();
    res.once('close', () => {
      inFlight -= 1;
    });
    res.once('finish', () => {
      const cache = String(res.getHeader(CACHE_HEADER) ?? 'none');
      answers.readCache[cache] = (answers.readCache[cache] ?? 0) + 1;
      (durations[cache] ??= []).push(performance.now() - arrived);
      if (res.statusCode < 300) return;
      const entry = (answers.failures[res.statusCode] ??= { count: 0, samples: [] });
      entry.count += 1;
      if (entry.samples.length < 5 && !entry.samples.includes(req.url!)) entry.samples.push(req.url!);
    });
    app(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  /**
   * No request open and the app's pool idle. A response closes as soon as autocannon drops
   * its sockets at the end of a run, while its handler may still wait on queries; those must
   * finish before the next case (or before the pool is destroyed).
   */
  const pool = (db.client as { pool?: { numUsed(): number; numPendingAcquires(): number } }).pool;
  const poolIdle = () => !pool || (pool.numUsed() === 0 && pool.numPendingAcquires() === 0);
  const drained = async (timeoutMs = 30_000) => {
    const deadline = Date.now() + timeoutMs;
    let quietPolls = 0;
    while (quietPolls < 3 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
      quietPolls = inFlight === 0 && poolIdle() ? quietPolls + 1 : 0;
    }
  };
  return {
    url: `http://127.0.0.1:${port}`,
    app,
    db,
    ceilingPosition,
    setCeilingBody: (body) => {
      ceilingBody = body;
    },
    answers: () => {
      for (const [cache, list] of Object.entries(durations)) {
        const sorted = list.sort((a, b) => a - b);
        answers.appMs[cache] = { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), max: sorted.at(-1) ?? 0 };
      }
      return answers;
    },
    resetAnswers: () => {
      answers = { failures: {}, readCache: {}, appMs: {} };
      durations = {};
    },
    drained: () => drained(),
    close: async () => {
      await drained();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await (app.locals.close as () => Promise<void>)();
      await db.destroy();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The app of `startBenchServer` in a child process: the same calls, answered over IPC. */
export interface RemoteBenchServer {
  url: string;
  pid: number;
  ceilingPosition: string;
  /** The process's memory once its modules were loaded, before the app was made. */
  beforeApp: AppMemory;
  setCeilingBody(body: Buffer): Promise<void>;
  answers(): Promise<Answers>;
  resetAnswers(): Promise<void>;
  drained(): Promise<void>;
  /** The app's memory after a full garbage collection. */
  memory(): Promise<AppMemory>;
  close(): Promise<void>;
}

/**
 * How `npm start` runs the server: the environment it sets, Node's flags and the compiled
 * tree it runs, read from package.json's start script (`[NAME=value ...] node [flags ...]
 * dist/.../server.js`), so the app under load runs as production does (compiled, with its
 * heap limit and allocator arenas).
 */
export function productionRuntime(): { env: Record<string, string>; nodeFlags: string[]; compiledRoot: string } {
  const packageJson = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } };
  const words = packageJson.scripts.start.trim().split(/\s+/);
  const node = words.indexOf('node');
  if (node < 0) throw new Error(`the start script does not run node: ${packageJson.scripts.start}`);
  const env = Object.fromEntries(
    words.slice(0, node).map((pair) => {
      const at = pair.indexOf('=');
      if (at < 1) throw new Error(`the start script's ${pair} is not NAME=value`);
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
  );
  const entry = words.at(-1)!;
  const compiled = /^(.*\/)src\/server\.js$/.exec(entry);
  if (!compiled) throw new Error(`the start script does not run the compiled server (…/src/server.js): ${entry}`);
  return { env, nodeFlags: words.slice(node + 1, -1), compiledRoot: compiled[1]! };
}

let built = false;
/** `npm run build` once per benchmark (what `npm start` runs first), so the app process runs the current code. */
function buildOnce(): void {
  if (built) return;
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: projectRoot, stdio: 'inherit' });
  built = true;
}

/** Forks app-process.ts with these options, as `npm start` runs the server, and waits until it listens. */
export async function spawnBenchServer(options: BenchServerOptions): Promise<RemoteBenchServer> {
  const runtime = productionRuntime();
  buildOnce();
  // This file's twin in the compiled tree (dist/test/bench/app-process.js), run as npm start runs dist/src/server.js.
  const appProcess = new URL(`../../${runtime.compiledRoot}test/bench/app-process.js`, import.meta.url);
  const child = fork(appProcess, [], {
    // BENCH_APP_NODE_OPTIONS adds Node flags to the app's process only (e.g. --cpu-prof to profile it).
    execArgv: ['--expose-gc', ...runtime.nodeFlags, ...(process.env.BENCH_APP_NODE_OPTIONS ?? '').split(' ').filter(Boolean)],
    env: { ...process.env, ...runtime.env, BENCH_APP_OPTIONS: JSON.stringify(options) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let nextId = 0;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  type Ready = { url: string; ceilingPosition: string; beforeApp: AppMemory };
  const ready = new Promise<Ready>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the app process exited (${code}) before listening`)));
    child.on('message', (message: { ready?: Ready; id?: number; value?: unknown; error?: string }) => {
      if (message.ready) return resolve(message.ready);
      const waiter = pending.get(message.id!);
      pending.delete(message.id!);
      if (message.error !== undefined) waiter?.reject(new Error(`app process: ${message.error}`));
      else waiter?.resolve(message.value);
    });
  });
  void exited.then(() => {
    for (const waiter of pending.values()) waiter.reject(new Error('the app process exited'));
    pending.clear();
  });
  const ask = <T>(request: AppRequest extends infer R ? (R extends AppRequest ? Omit<R, 'id'> : never) : never): Promise<T> =>
    new Promise((resolve, reject) => {
      const id = (nextId += 1);
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      child.send({ ...request, id });
    });
  const { url, ceilingPosition, beforeApp } = await ready;
  return {
    url,
    pid: child.pid!,
    ceilingPosition,
    beforeApp,
    setCeilingBody: (body) => ask({ op: 'setCeilingBody', base64: body.toString('base64') }),
    answers: () => ask({ op: 'answers' }),
    resetAnswers: () => ask({ op: 'resetAnswers' }),
    drained: () => ask({ op: 'drained' }),
    memory: () => ask({ op: 'memory' }),
    close: async () => {
      await ask({ op: 'close' });
      const timer = setTimeout(() => child.kill(), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export interface LoadOptions {
  connections: number;
  duration: number;
}

/**
 * autocannon 9 decodes every response body to a string and appends it, chunk by chunk, for body
 * checks (`expectBody`, `verifyBody`, `onResponse`) this benchmark does not use. The home page's
 * 169 KB hold "·" and "×", so each became a two-byte string: 62% of the load generator's time
 * went to its garbage collector and 14% to decoding, and the load generator, not the app, set the
 * HTML case's rate (the app used 0.31 ms of CPU per page, less than per ceiling answer, and sat
 * idle most of the case). Bodies are counted, not kept: autocannon counts their bytes apart.
 */
const PipelinedRequestsQueue = createRequire(import.meta.url)('autocannon/lib/pipelinedRequestsQueue.js') as {
  prototype: { addBody(data: Buffer): void };
};
PipelinedRequestsQueue.prototype.addBody = () => {};

/**
 * Load on `paths`: one path is requested as is; a list is walked in order by all
 * connections together (a shared cursor), so the mix's skew is what the server sees.
 */
export function runLoad(url: string, paths: readonly string[], options: LoadOptions, start = 0): Promise<Result> {
  let cursor = start;
  const requests =
    paths.length === 1
      ? [{ method: 'GET', path: paths[0]! }]
      : [{ method: 'GET', setupRequest: (request: { path?: string }) => ({ ...request, path: paths[cursor++ % paths.length]! }) }];
  return new Promise((resolve, reject) => {
    autocannon({ url, connections: options.connections, duration: options.duration, timeout: 30, requests }, (error, result) =>
      error ? reject(error) : resolve(result),
    );
  });
}

/** A process's resident set in bytes, from /proc (Linux); this process's own through Node elsewhere. */
function residentBytes(pid: number): number {
  if (pid === process.pid || process.platform !== 'linux') return process.memoryUsage.rss();
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) * 1024;
  } catch {
    return 0; // exited
  }
}

/** Clock ticks per second of /proc's CPU times (`getconf CLK_TCK`; 100 on Linux where getconf is missing). */
let clockTicks: number | undefined;

/** CPU time (user + system, ms) a process has used, from /proc; 0 once it has exited. */
function processCpuMs(pid: number | string): number {
  clockTicks ??= (() => {
    try {
      return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      return 100;
    }
  })();
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks;
  } catch {
    return 0;
  }
}

/** CPU time used so far by the app's process and by every Postgres server process on this machine (Linux only: null elsewhere). */
export function cpuTimes(appPid: number): { appMs: number; postgresMs: number } | null {
  if (process.platform !== 'linux') return null;
  let postgresMs = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres') postgresMs += processCpuMs(entry);
    } catch {
      // exited meanwhile
    }
  }
  return { appMs: processCpuMs(appPid), postgresMs };
}

/** Samples a process's RSS (this one's by default) every 100 ms; `peak` since the last `reset`, `overall` since start. */
export function rssSampler(pid = process.pid) {
  let peak = 0;
  let overall = 0;
  const sample = () => {
    const rss = residentBytes(pid);
    peak = Math.max(peak, rss);
    overall = Math.max(overall, rss);
  };
  const timer = setInterval(sample, 100);
  timer.unref();
  sample();
  return {
    reset: () => {
      peak = residentBytes(pid);
    },
    peakMb: () => peak / 2 ** 20,
    overallMb: () => overall / 2 ** 20,
    stop: () => clearInterval(timer),
  };
}
