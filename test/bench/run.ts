/**
 * `npm run bench [-- options]`: the performance benchmark (not a test).
 *
 *   --runs N          speed-test runs to seed (default 1,000,000)
 *   --duration S      measured seconds per case (default 10), after a --warmup (default 2) s run
 *   --connections C   concurrent connections (default 32)
 *   --keep            reuse the seeded database if it exists (whatever its size)
 *   --database NAME   the database to create or reuse (default bh_bench)
 *   --cases a,b       only these cases (the ceiling always runs): leaderboard-unfiltered,
 *                     leaderboard-mix, models-search, results-list, html-page
 *   --pool N          the app's Postgres pool size (default: the server's, createDb's default)
 *   --paths a,b       read paths to measure (default index,sql): `index` is an app with
 *                     READ_INDEX=on (measured once its index is built; the build time is
 *                     reported), `sql` one with READ_INDEX=off. Every case runs on each.
 *   --html-path P     the HTML leaderboard page (default: /leaderboard if it answers HTML, else /)
 *   --env K=V         more app environment for every read path (repeatable), e.g.
 *                     --env READ_INDEX_DOCUMENTS=100000
 *   --out FILE        results file (default bench-results.json)
 *   --mix-seed N      draw the three query mixes from other seeds (default 0: the lists every
 *                     earlier figure was measured on); a check that a change holds on queries
 *                     it was not tuned on
 *
 * Database: DATABASE_URL's server when set (a database bh_bench is created on it), else an
 * embedded Postgres under ./data/bench-pg. Each app (createApp, production config, silent
 * logger) runs in a process of its own (app-process.ts), autocannon in this one: the peak
 * RSS reported is the app's alone (BENCH_APP_NODE_OPTIONS adds Node flags to the app's
 * process, e.g. `--cpu-prof --cpu-prof-dir=prof`); on Linux each case also reports the CPU time per answer
 * of the app's process and of Postgres's (from /proc), steadier than req/s when the machine's
 * speed swings. The ceiling is a route of the same app placed
 * before its routers (see harness.ts), measured first and last; ratios use the mean.
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import type { Result } from 'autocannon';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/db/embedded.ts';
import { createDb, migrateLatest, type Db } from '../../src/db/knex.ts';
import { getRevisionProfile, type RevisionProfile } from '../../src/revisions.ts';
import { loadConfig } from '../../src/config.ts';
import {
  CEILING_PATH,
  cpuTimes,
  productionRuntime,
  rssSampler,
  runLoad,
  spawnBenchServer,
  type Answers,
  type RemoteBenchServer,
} from './harness.ts';
import { seedDatabase, type SeedSummary } from './seed.ts';
import { leaderboardMix, modelSearchMix, readTrafficFacts, resultsMix, type Mix } from './traffic.ts';

/** Issue 15's targets: the leaderboard JSON and the results list p99 <= 50 ms and >= 0.5x the ceiling; the HTML page >= 0.3x. */
const TARGETS = {
  'leaderboard-unfiltered': { p99Ms: 50, ratio: 0.5 },
  'leaderboard-mix': { p99Ms: 50, ratio: 0.5 },
  'results-list': { p99Ms: 50, ratio: 0.5 },
  'html-page': { p99Ms: null, ratio: 0.3 },
} as const;
const ALL_CASES = ['leaderboard-unfiltered', 'leaderboard-mix', 'models-search', 'results-list', 'html-page'] as const;
type CaseName = (typeof ALL_CASES)[number] | 'ceiling' | 'ceiling-end';

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '1000000' },
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '32' },
    keep: { type: 'boolean', default: false },
    database: { type: 'string', default: 'bh_bench' },
    cases: { type: 'string' },
    pool: { type: 'string' },
    paths: { type: 'string', default: 'index,sql' },
    env: { type: 'string', multiple: true },
    'html-path': { type: 'string' },
    out: { type: 'string', default: 'bench-results.json' },
    'mix-seed': { type: 'string', default: '0' },
  },
  strict: true,
});

const positiveInt = (name: string, raw: string) => {
  const n = Number(raw.replace(/[_,]/g, ''));
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive whole number, got ${raw}`);
  return n;
};
/** The read paths: each is an app built with this environment. */
const READ_PATHS = { index: { READ_INDEX: 'on' }, sql: { READ_INDEX: 'off' } } as const;
type ReadPath = keyof typeof READ_PATHS;

const options = {
  runs: positiveInt('runs', args.runs),
  duration: positiveInt('duration', args.duration),
  warmup: Number(args.warmup),
  connections: positiveInt('connections', args.connections),
  keep: args.keep,
  database: args.database,
  cases: args.cases ? args.cases.split(',').map((c) => c.trim()) : [...ALL_CASES],
  pool: args.pool ? positiveInt('pool', args.pool) : undefined,
  paths: args.paths.split(',').map((p) => p.trim()) as ReadPath[],
  env: Object.fromEntries(
    (args.env ?? []).map((pair) => {
      const at = pair.indexOf('=');
      if (at < 1) throw new Error(`--env expects KEY=VALUE, got ${pair}`);
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
  ),
  out: path.resolve(args.out),
  mixSeed: args['mix-seed'] === '0' ? 0 : positiveInt('mix-seed', args['mix-seed']),
};
if (!/^[a-z_][a-z0-9_]*$/.test(options.database)) throw new Error(`--database must be a plain lower-case name, got ${options.database}`);
const DATABASE = options.database;
for (const name of options.paths) {
  if (!(name in READ_PATHS)) throw new Error(`unknown read path ${name}; known: ${Object.keys(READ_PATHS).join(', ')}`);
}
for (const name of options.cases) {
  if (!(ALL_CASES as readonly string[]).includes(name)) throw new Error(`unknown case ${name}; known: ${ALL_CASES.join(', ')}`);
}

const log = (message: string) => process.stdout.write(`${message}\n`);
const ms = (n: number) => n.toFixed(n < 10 ? 2 : 1);

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function admin<T>(serverUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

interface SeedInfo {
  runs: number;
  seededAt: string;
  seconds: number;
}

/** Creates (or with --keep reuses) bh_bench, migrated and seeded. */
async function prepareDatabase(
  serverUrl: string,
  profile: RevisionProfile,
): Promise<{ url: string; seed: SeedSummary | null; info: SeedInfo }> {
  const url = withDatabase(serverUrl, DATABASE);
  const existing = await admin(serverUrl, async (c) => {
    const { rows } = await c.query('select shobj_description(oid, $2) as comment from pg_database where datname = $1', [
      DATABASE,
      'pg_database',
    ]);
    return rows[0] as { comment: string | null } | undefined;
  });
  if (options.keep && existing) {
    const db = createDb(url, { max: 2 });
    try {
      await migrateLatest(db);
      let info: SeedInfo;
      try {
        info = JSON.parse(existing.comment ?? '') as SeedInfo;
      } catch {
        // A copy (CREATE DATABASE ... TEMPLATE) does not carry the comment: count instead.
        const [{ n }] = await db('speed_test_runs').count<{ n: number }[]>('* as n');
        info = { runs: n, seededAt: 'unknown', seconds: 0 };
      }
      log(
        `reusing database ${DATABASE} (${info.runs.toLocaleString('en')} runs, seeded ${info.seededAt}${info.seconds ? ` in ${info.seconds.toFixed(0)} s` : ''})`,
      );
      if (info.runs !== options.runs)
        log(`  note: it holds ${info.runs.toLocaleString('en')} runs, not --runs ${options.runs.toLocaleString('en')}`);
      return { url, seed: null, info };
    } finally {
      await db.destroy();
    }
  }
  await admin(serverUrl, async (c) => {
    await c.query(`drop database if exists ${DATABASE} with (force)`);
    await c.query(`create database ${DATABASE}`);
  });
  const db = createDb(url, { max: 2 });
  try {
    await migrateLatest(db);
    log(`seeding ${options.runs.toLocaleString('en')} runs into ${DATABASE}...`);
    const seed = await seedDatabase(db, profile, { runs: options.runs, users: 5000, models: 2000, hardwareProfiles: 400, days: 90, log });
    const info: SeedInfo = { runs: options.runs, seededAt: new Date().toISOString(), seconds: seed.seconds };
    await db.raw(`comment on database ${DATABASE} is '${JSON.stringify(info)}'`);
    log(`seeded in ${seed.seconds.toFixed(1)} s`);
    return { url, seed, info };
  } finally {
    await db.destroy();
  }
}

interface CaseResult {
  name: CaseName;
  reads: ReadPath;
  paths: number;
  distinctPaths: number;
  samplePath: string;
  requests: number;
  reqPerSec: number;
  latencyMs: { p50: number; p90: number; p99: number; mean: number; max: number };
  ratioToCeiling: number | null;
  non2xx: number;
  errors: number;
  timeouts: number;
  avgBodyBytes: number;
  peakRssMb: number;
  failures: Answers['failures'];
  /** Share of answers served from the anonymous answer cache. */
  readCacheHits: number;
  /** The app's own time per answer by X-Read-Cache outcome (see `Answers.appMs`). */
  appMs: Answers['appMs'];
  /**
   * CPU time per answer (ms) of the app's process and of Postgres's, over the measured run (null
   * off Linux). Steadier than req/s on a machine whose speed swings: two cores are shared by
   * the app, Postgres and the load generator, and a case's req/s is what they leave each other.
   */
  cpuMsPerRequest: { app: number; postgres: number } | null;
  target?: { p99Ms: number | null; ratio: number; p99Ok: boolean; ratioOk: boolean; pass: boolean };
}

function summarise(
  name: CaseName,
  reads: ReadPath,
  paths: readonly string[],
  result: Result,
  answers: Answers,
  peakRssMb: number,
  cpuMs: { app: number; postgres: number } | null,
): CaseResult {
  const requests = result['2xx'] + result.non2xx;
  return {
    name,
    reads,
    paths: paths.length,
    distinctPaths: new Set(paths).size,
    samplePath: paths[0]!,
    requests,
    reqPerSec: requests / result.duration,
    latencyMs: {
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      mean: result.latency.average,
      max: result.latency.max,
    },
    ratioToCeiling: null,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    avgBodyBytes: requests ? Math.round(result.throughput.total / requests) : 0,
    peakRssMb,
    cpuMsPerRequest: cpuMs && requests ? { app: cpuMs.app / requests, postgres: cpuMs.postgres / requests } : null,
    failures: answers.failures,
    appMs: answers.appMs,
    readCacheHits:
      (answers.readCache.hit ?? 0) /
      Math.max(
        1,
        Object.values(answers.readCache).reduce((a, b) => a + b, 0),
      ),
  };
}

/** Ratios to the ceiling (the mean of its two runs of that app) and the issue's targets for each case. */
function judge(results: CaseResult[], ceilings: Map<ReadPath, number>): void {
  for (const entry of results) {
    if (entry.name.startsWith('ceiling')) continue;
    entry.ratioToCeiling = entry.reqPerSec / ceilings.get(entry.reads)!;
    const target = TARGETS[entry.name as keyof typeof TARGETS];
    if (target) {
      const p99Ok = target.p99Ms === null || entry.latencyMs.p99 <= target.p99Ms;
      const ratioOk = entry.ratioToCeiling >= target.ratio;
      entry.target = { ...target, p99Ok, ratioOk, pass: p99Ok && ratioOk && entry.non2xx === 0 && entry.errors === 0 };
    }
  }
}

function printTable(results: CaseResult[]): void {
  const header = [
    'case',
    'reads',
    'paths',
    'req/s',
    'p50 ms',
    'p99 ms',
    'mean ms',
    'x ceiling',
    'non-2xx',
    'errors',
    'body KB',
    'RSS MB',
    'cache hits',
    'app CPU ms',
    'pg CPU ms',
    'target',
  ];
  const rows = results.map((r) => [
    r.name,
    r.reads,
    r.distinctPaths === 1 ? '1' : `${r.distinctPaths}`,
    r.reqPerSec.toFixed(0),
    ms(r.latencyMs.p50),
    ms(r.latencyMs.p99),
    ms(r.latencyMs.mean),
    r.ratioToCeiling === null ? '-' : r.ratioToCeiling.toFixed(2),
    String(r.non2xx),
    String(r.errors),
    (r.avgBodyBytes / 1024).toFixed(1),
    r.peakRssMb.toFixed(0),
    `${(r.readCacheHits * 100).toFixed(0)}%`,
    r.cpuMsPerRequest ? r.cpuMsPerRequest.app.toFixed(3) : '-',
    r.cpuMsPerRequest ? r.cpuMsPerRequest.postgres.toFixed(3) : '-',
    r.target ? (r.target.pass ? 'PASS' : `FAIL${r.target.p99Ok ? '' : ' p99'}${r.target.ratioOk ? '' : ' ratio'}`) : '',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  log(line(header));
  log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of rows) log(line(row));
}

/** A few distinct paths of each mix must answer 200 before any load (a 400 mix measures nothing). */
async function preflight(url: string, name: string, paths: readonly string[]): Promise<void> {
  const distinct = [...new Set(paths)];
  const sample = distinct.filter((_p, i) => i % Math.max(1, Math.floor(distinct.length / 25)) === 0).slice(0, 25);
  for (const p of sample) {
    const res = await fetch(url + p);
    if (res.status !== 200) throw new Error(`${name}: GET ${p} answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
    await res.arrayBuffer().catch(() => undefined);
  }
}

/** The leaderboard's totals must be exact: compare a few with count(*). */
async function checkExactTotals(url: string, db: Db): Promise<{ path: string; api: number; sql: number; exact: boolean }[]> {
  const top = await db('models').orderBy('benchmark_count', 'desc').first('id', 'hf_id');
  const checks: [string, Promise<number>][] = [
    [
      '/api/leaderboard',
      db('speed_test_runs')
        .where({ status: 'APPROVED' })
        .count<{ n: number }[]>('* as n')
        .then((r) => r[0]!.n),
    ],
    [
      '/api/leaderboard?hwClass=UNIFIED',
      db('speed_test_runs')
        .where({ status: 'APPROVED', hw_class: 'UNIFIED' })
        .count<{ n: number }[]>('* as n')
        .then((r) => r[0]!.n),
    ],
    [
      `/api/leaderboard?hfId=${encodeURIComponent(top.hf_id)}`,
      db('speed_test_runs')
        .where({ status: 'APPROVED', model_id: top.id })
        .count<{ n: number }[]>('* as n')
        .then((r) => r[0]!.n),
    ],
  ];
  const out = [];
  for (const [p, sqlCount] of checks) {
    const body = (await (await fetch(url + p)).json()) as { total: number };
    const sql = await sqlCount;
    out.push({ path: p, api: body.total, sql, exact: body.total === sql });
  }
  return out;
}

/**
 * Polls /healthz until the app's read index is built (it answers through the database until
 * then) or, with `filled`, also its document file filled (pages read documents from the database until then).
 */
async function waitForReadIndex(url: string, filled = false): Promise<{ runs: number; documents: number }> {
  for (;;) {
    const health = (await (await fetch(`${url}/healthz`)).json()) as {
      readIndex?: { state: string; runs: number | null; documents?: { filling: boolean; held: number } };
    };
    const readIndex = health.readIndex;
    if (readIndex?.state === 'ready' && !(filled && readIndex.documents?.filling))
      return { runs: readIndex.runs ?? 0, documents: readIndex.documents?.held ?? 0 };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function detectHtmlPath(url: string): Promise<{ path: string; note: string }> {
  if (args['html-path']) return { path: args['html-path'], note: 'given with --html-path' };
  const res = await fetch(`${url}/leaderboard`, { headers: { accept: 'text/html' } });
  const html = res.status === 200 && (res.headers.get('content-type') ?? '').includes('text/html');
  await res.arrayBuffer().catch(() => undefined);
  if (html) return { path: '/leaderboard', note: 'the HTML leaderboard page' };
  return { path: '/', note: `nothing at /leaderboard (it answered ${res.status}); measuring GET /, the home page` };
}

async function main(): Promise<void> {
  const started = Date.now();
  const profile = getRevisionProfile(loadConfig({ ...process.env, NODE_ENV: 'test', SESSION_SECRET: 'x'.repeat(32) }).revision);
  let embedded: EmbeddedDatabase | undefined;
  let serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    log('DATABASE_URL is not set: starting an embedded Postgres under ./data/bench-pg');
    embedded = await startEmbeddedPostgres(path.resolve('data/bench-pg'));
    serverUrl = embedded.url;
  }
  const servers: RemoteBenchServer[] = [];
  const cleanup = async () => {
    for (const s of servers) await s.close().catch(() => undefined);
    await embedded?.stop().catch(() => undefined);
  };
  process.once('SIGINT', () => {
    void cleanup().then(() => process.exit(130));
  });

  try {
    const database = await prepareDatabase(serverUrl, profile);
    const facts = await admin(database.url, async (c) => {
      const { rows } = await c.query(`select version() as version,
        current_setting('shared_buffers') as shared_buffers, current_setting('work_mem') as work_mem,
        current_setting('effective_cache_size') as effective_cache_size,
        current_setting('max_parallel_workers_per_gather') as max_parallel_workers_per_gather,
        pg_size_pretty(pg_total_relation_size('speed_test_runs')) as runs_size,
        (select count(*)::int from speed_test_runs) as runs`);
      return rows[0] as Record<string, string | number>;
    });
    log(
      `postgres: ${String(facts.version).split(' on ')[0]} (${embedded ? 'embedded' : 'DATABASE_URL'}), shared_buffers ${facts.shared_buffers}, work_mem ${facts.work_mem}; speed_test_runs ${Number(facts.runs).toLocaleString('en')} rows, ${facts.runs_size}`,
    );

    const readDb = createDb(database.url, { max: 2 });
    const traffic = await readTrafficFacts(readDb);
    const mixes: Record<string, Mix> = {
      'leaderboard-mix': leaderboardMix(traffic, profile, { seedOffset: options.mixSeed }),
      'results-list': resultsMix(traffic, profile, { seedOffset: options.mixSeed }),
      'models-search': modelSearchMix(traffic, { seedOffset: options.mixSeed }),
    };
    const leaderboardDistinct = mixes['leaderboard-mix']!.distinct;
    if (leaderboardDistinct < 500) throw new Error(`the leaderboard mix has only ${leaderboardDistinct} distinct queries (need >= 500)`);

    const results: CaseResult[] = [];
    const ceilings = new Map<ReadPath, { first: number; last: number; mean: number }>();
    const builds: Partial<
      Record<ReadPath, { seconds: number; runs: number; rssMbAfterBuild: number; heapMbAfterBuild: number; bytesPerRun: number }>
    > = {};
    let ceilingBytes = 0;
    let htmlNote = '';
    const exactTotals: { reads: ReadPath; path: string; api: number; sql: number; exact: boolean }[] = [];
    let ceilingPosition = '';

    /** Each app's peak RSS over its whole life (build included). */
    const appPeakRssMb: Partial<Record<ReadPath, number>> = {};
    // One app process per read path, one after the other (each closed before the next starts).
    for (const reads of options.paths) {
      const startedAt = Date.now();
      const server = await spawnBenchServer({
        databaseUrl: database.url,
        pool: options.pool,
        env: { ...options.env, ...READ_PATHS[reads] },
      });
      servers.push(server);
      const rss = rssSampler(server.pid);
      const before = server.beforeApp;
      if (reads === 'index') {
        const status = await waitForReadIndex(server.url);
        const memory = await server.memory();
        // What the index (and the rest of a fresh app) added: heap plus typed arrays' buffers.
        const added = memory.heapUsed + memory.arrayBuffers - (before.heapUsed + before.arrayBuffers);
        builds.index = {
          seconds: (Date.now() - startedAt) / 1000,
          runs: status.runs,
          rssMbAfterBuild: memory.rss / 2 ** 20,
          heapMbAfterBuild: memory.heapUsed / 2 ** 20,
          bytesPerRun: Math.round(added / Math.max(1, status.runs)),
        };
        log(
          `read index built: ${status.runs.toLocaleString('en')} runs in ${builds.index.seconds.toFixed(1)} s; RSS ${builds.index.rssMbAfterBuild.toFixed(0)} MB ` +
            `(peak ${rss.overallMb().toFixed(0)} MB while building), ` +
            `heap ${builds.index.heapMbAfterBuild.toFixed(0)} MB, ${builds.index.bytesPerRun} bytes per run (heap + buffers)`,
        );
        const fillStarted = Date.now();
        const { documents } = await waitForReadIndex(server.url, true);
        log(`documents filled: ${documents.toLocaleString('en')} in ${((Date.now() - fillStarted) / 1000).toFixed(1)} s`);
      }
      ceilingPosition = server.ceilingPosition;
      const unfiltered = await fetch(`${server.url}/api/leaderboard`);
      if (unfiltered.status !== 200) throw new Error(`GET /api/leaderboard answered ${unfiltered.status}`);
      const body = Buffer.from(await unfiltered.arrayBuffer());
      await server.setCeilingBody(body);
      ceilingBytes = body.length;
      exactTotals.push(...(await checkExactTotals(server.url, readDb)).map((check) => ({ reads, ...check })));
      const html = await detectHtmlPath(server.url);
      htmlNote = html.note;

      const casePaths: Record<string, readonly string[]> = {
        ceiling: [CEILING_PATH],
        'ceiling-end': [CEILING_PATH],
        'leaderboard-unfiltered': ['/api/leaderboard'],
        'leaderboard-mix': mixes['leaderboard-mix']!.paths,
        'models-search': mixes['models-search']!.paths,
        'results-list': mixes['results-list']!.paths,
        'html-page': [html.path],
      };
      // The ceiling runs first and again last: the ratios use the mean of the two.
      const names: CaseName[] = ['ceiling', ...(options.cases as CaseName[]), 'ceiling-end'];
      for (const name of names) await preflight(server.url, name, casePaths[name]!);

      log('');
      log(
        `reads ${reads}: ${names.length} cases, ${options.connections} connections, ${options.warmup} s warm-up + ${options.duration} s each`,
      );
      let first = 0;
      for (const name of names) {
        const paths = casePaths[name]!;
        if (options.warmup > 0)
          await runLoad(server.url, paths, { connections: options.connections, duration: options.warmup }, Math.floor(paths.length / 2));
        await server.drained();
        await server.resetAnswers();
        rss.reset();
        const cpuBefore = cpuTimes(server.pid);
        const result = await runLoad(server.url, paths, { connections: options.connections, duration: options.duration });
        await server.drained();
        const cpuAfter = cpuTimes(server.pid);
        const cpuMs =
          cpuBefore && cpuAfter ? { app: cpuAfter.appMs - cpuBefore.appMs, postgres: cpuAfter.postgresMs - cpuBefore.postgresMs } : null;
        const entry = summarise(name, reads, paths, result, await server.answers(), rss.peakMb(), cpuMs);
        if (name === 'ceiling') first = entry.reqPerSec;
        if (name === 'ceiling-end') ceilings.set(reads, { first, last: entry.reqPerSec, mean: (first + entry.reqPerSec) / 2 });
        if (!name.startsWith('ceiling')) entry.ratioToCeiling = entry.reqPerSec / first;
        results.push(entry);
        const appTimes = Object.entries(entry.appMs)
          .map(([cache, t]) => `${cache} ${ms(t.p50)}/${ms(t.p99)}/${ms(t.max)}`)
          .join(', ');
        log(
          `  ${name.padEnd(22)} ${entry.reqPerSec.toFixed(0).padStart(6)} req/s  p50 ${ms(entry.latencyMs.p50).padStart(6)} ms  p99 ${ms(entry.latencyMs.p99).padStart(6)} ms` +
            `${entry.ratioToCeiling === null ? '' : `  x${entry.ratioToCeiling.toFixed(2)}`}${entry.non2xx ? `  non-2xx ${entry.non2xx} ${JSON.stringify(entry.failures)}` : ''}` +
            `  (in the app, p50/p99/max ms: ${appTimes})` +
            (entry.cpuMsPerRequest
              ? `  CPU ms/answer: app ${entry.cpuMsPerRequest.app.toFixed(3)}, postgres ${entry.cpuMsPerRequest.postgres.toFixed(3)}`
              : ''),
        );
      }
      appPeakRssMb[reads] = rss.overallMb();
      rss.stop();
      await server.close();
      servers.splice(servers.indexOf(server), 1);
    }
    await readDb.destroy();
    judge(results, new Map([...ceilings].map(([reads, c]) => [reads, c.mean])));

    log('');
    log(
      `results (${options.connections} connections, ${options.duration} s per case after ${options.warmup} s warm-up; latency in ms; x ceiling against the same app's ceiling):`,
    );
    printTable(results);
    log('');
    for (const [reads, c] of ceilings)
      log(
        `ceiling (${reads}): ${c.first.toFixed(0)} req/s first, ${c.last.toFixed(0)} req/s last; ratios use the mean, ${c.mean.toFixed(0)} req/s`,
      );
    log(
      `ceiling: GET ${CEILING_PATH} answers a precomputed ${ceilingBytes.toLocaleString('en')}-byte JSON body (the unfiltered leaderboard's own) through the same app and middleware (${ceilingPosition})`,
    );
    log(`html-page: ${htmlNote}`);
    log(`exact totals: ${exactTotals.map((t) => `[${t.reads}] ${t.path} ${t.api}${t.exact ? ' = ' : ' != '}${t.sql}`).join('; ')}`);
    const runtime = productionRuntime();
    log(
      `app runtime (npm start's): ${Object.entries(runtime.env)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')} node ${runtime.nodeFlags.join(' ')}`,
    );
    for (const [reads, mb] of Object.entries(appPeakRssMb))
      log(`peak RSS of the app (${reads}), its own process from start to close: ${mb.toFixed(0)} MB`);
    log(`peak RSS of the load generator (this process): ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
    for (const t of results.filter((r) => r.target)) {
      log(
        `target ${t.name} [${t.reads}]: p99 ${ms(t.latencyMs.p99)} ms${t.target!.p99Ms === null ? '' : ` (<= ${t.target!.p99Ms}) ${t.target!.p99Ok ? 'ok' : 'MISSED'}`}, ` +
          `${t.ratioToCeiling!.toFixed(2)}x ceiling (>= ${t.target!.ratio}) ${t.target!.ratioOk ? 'ok' : 'MISSED'}`,
      );
    }

    const report = {
      startedAt: new Date(started).toISOString(),
      wallSeconds: (Date.now() - started) / 1000,
      machine: {
        cpus: os.cpus().length,
        cpuModel: os.cpus()[0]?.model,
        totalMemGb: Math.round(os.totalmem() / 2 ** 30),
        node: process.version,
      },
      database: { kind: embedded ? 'embedded' : 'DATABASE_URL', ...facts },
      revision: profile.revision,
      options: { ...options, out: undefined },
      seeding: database.seed ?? { reused: true, ...database.info },
      readIndexBuild: builds.index ?? null,
      ceiling: { path: CEILING_PATH, bytes: ceilingBytes, position: ceilingPosition, byReadPath: Object.fromEntries(ceilings) },
      htmlPage: htmlNote,
      mixes: Object.fromEntries(Object.entries(mixes).map(([k, m]) => [k, { requests: m.paths.length, distinct: m.distinct }])),
      exactTotals,
      appRuntime: productionRuntime(),
      appPeakRssMb,
      loadGeneratorMaxRssMb: process.resourceUsage().maxRSS / 1024,
      targets: TARGETS,
      cases: results,
    };
    writeFileSync(options.out, `${JSON.stringify(report, null, 2)}\n`);
    log(`wrote ${path.relative(process.cwd(), options.out)} (${((Date.now() - started) / 1000).toFixed(0)} s in all)`);
  } finally {
    await cleanup();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
