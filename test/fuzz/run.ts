/**
 * `npm run fuzz [-- options]`: property-based fuzzing (fast-check) of every write endpoint's
 * body and every GET's query string and path, API and pages, per API revision, against the
 * app on a real loopback port with a test database (DATABASE_URL's server, as `npm test`).
 *
 *   --runs N          cases per endpoint (default 50: about two minutes on two cores)
 *   --seed S          base seed (default fixed, so CI runs are reproducible); each endpoint's
 *                     seed is derived from it and the endpoint's name
 *   --only TEXT       only the endpoint named TEXT, or else those whose name contains it
 *                     (`r3 POST /submit`, `submitSpeedTest`)
 *   --revisions 1,2,3 which API revisions to build the app for (default all)
 *   --replay PATH     with --only naming one endpoint: replay (and shrink) the case at PATH
 *   --verbose         print every case with its status
 *
 * Every answer must be below 500, within 5 s, without a stack trace, and a 4xx must be
 * well shaped (`{ error }` JSON under /api, validation details included; HTML for pages).
 * Afterwards Object.prototype and the other built-in prototypes must be as they were.
 * Prints per endpoint the runs, the status histogram and the slowest answer, then each
 * failure with its cause (the app's error log), fast-check's shrunk counterexample and the
 * command that replays it. Exits 1 on any failure.
 */
import { createHash } from 'node:crypto';
import { parseArgs } from 'node:util';
import fc from 'fast-check';
import type { RevisionNumber } from '../../src/revisions.ts';
import { stopTestDatabaseServer } from '../helpers/database.ts';
import { caseArbitrary, describeCase, problemWith, requestOf, SLOW_MS, type FuzzCase } from './cases.ts';
import { FuzzApp } from './harness.ts';
import { HttpClient, type RawResponse } from './http.ts';
import { buildTargets, type Target } from './targets.ts';

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '50' },
    seed: { type: 'string', default: '20261212' },
    only: { type: 'string' },
    revisions: { type: 'string', default: '1,2,3' },
    replay: { type: 'string' },
    verbose: { type: 'boolean', default: false },
  },
  strict: true,
});

const runs = Number(args.runs);
const seed = Number(args.seed);
if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a positive whole number, got ${args.runs}`);
if (!Number.isInteger(seed)) throw new Error(`--seed must be a whole number, got ${args.seed}`);
const revisions = args.revisions.split(',').map((r) => Number(r.trim()));
for (const revision of revisions) if (![1, 2, 3].includes(revision)) throw new Error(`--revisions takes 1, 2 and 3, got ${args.revisions}`);

const log = (line = '') => process.stdout.write(`${line}\n`);
/** How long fast-check may shrink one failure. */
const SHRINK_MS = 15_000;

/** The seed of one endpoint: the same whatever else runs (so --only reproduces a full run's case). */
function seedOf(target: Target): number {
  return createHash('sha256').update(`${seed}:${target.name}`).digest().readInt32LE(0);
}

interface Outcome {
  status: number;
  ms: number;
  problem?: string;
  cause?: string;
  description: string;
}

interface Failure extends Outcome {
  target: string;
  /** fast-check's path of the case: its run index. */
  path: string;
  count: number;
  shrunk?: string;
}

interface Figures {
  target: string;
  runs: number;
  statuses: Map<number, number>;
  maxMs: number;
  failures: Map<string, Failure>;
}

let requestCounter = 0;

/** Sends one case and judges the answer; puts back what a successful write may have changed. */
async function exercise(app: FuzzApp, target: Target, fuzzCase: FuzzCase): Promise<Outcome> {
  const write = target.method !== 'GET';
  if (write) await app.forgetThrottles();
  const requestId = `fuzz-${(requestCounter += 1)}`;
  const request = requestOf(app, target, fuzzCase, requestId);
  const description = describeCase(fuzzCase, request);
  let res: RawResponse;
  try {
    res = await app.http.send(request);
  } catch (error) {
    await app.restore();
    return { status: 0, ms: 0, problem: `no answer: ${(error as Error).message}`, cause: app.errorsByRequest.get(requestId), description };
  }
  const problem = problemWith(target, res);
  if (args.verbose) log(`  ${res.status} ${Math.round(res.ms)} ms  ${description.slice(0, 300)}`);
  if (write && (res.status < 400 || res.status >= 500)) await app.restore();
  return { status: res.status, ms: res.ms, problem, cause: problem ? app.errorsByRequest.get(requestId) : undefined, description };
}

/** Failures group by what went wrong and why (numbers and ids blurred), so one cause is listed once per endpoint. */
const signatureOf = (outcome: Outcome) => `${outcome.problem} ${outcome.cause ?? ''}`.replace(/[0-9a-f]{8}-[0-9a-f-]{27}|\d+/g, '#');

async function fuzzTarget(app: FuzzApp, target: Target): Promise<Figures> {
  const figures: Figures = { target: target.name, runs: 0, statuses: new Map(), maxMs: 0, failures: new Map() };
  const arbitrary = caseArbitrary(target);
  const params = { seed: seedOf(target), numRuns: runs };

  if (args.replay) {
    const details = await fc.check(strictProperty(app, target, arbitrary), { ...params, path: args.replay });
    log(
      details.failed
        ? `replayed ${args.replay}: fails\n  ${shrunkOf(details.counterexample, app, target)}\n  ${String(details.errorInstance)}`
        : `replayed ${args.replay}: passes`,
    );
    return figures;
  }

  // Every case runs and is counted; a failing one is only noted here, so one known 5xx
  // does not hide the rest of the endpoint's cases.
  let index = -1;
  const details = await fc.check(
    fc.asyncProperty(arbitrary, async (fuzzCase) => {
      index += 1;
      const outcome = await exercise(app, target, fuzzCase);
      figures.runs += 1;
      figures.statuses.set(outcome.status, (figures.statuses.get(outcome.status) ?? 0) + 1);
      figures.maxMs = Math.max(figures.maxMs, outcome.ms);
      if (outcome.problem) {
        const signature = signatureOf(outcome);
        const known = figures.failures.get(signature);
        if (known) known.count += 1;
        else figures.failures.set(signature, { ...outcome, target: target.name, path: String(index), count: 1 });
      }
      return true;
    }),
    params,
  );
  // The property never fails, so this is the fuzzer itself breaking (an exception while generating or sending).
  if (details.failed) {
    const problem = `the fuzzer stopped after ${figures.runs} cases: ${String(details.errorInstance)}`;
    figures.failures.set(problem, {
      status: 0,
      ms: 0,
      problem,
      description: '',
      target: target.name,
      path: String(index),
      count: 1,
      shrunk: '',
    });
    return figures;
  }

  // Then fast-check replays the first case of each kind of failure and shrinks it (for a
  // while: each try is a request, and a slow failure would make shrinking take minutes).
  for (const failure of figures.failures.values()) {
    const details = await fc.check(strictProperty(app, target, arbitrary), {
      ...params,
      path: failure.path,
      interruptAfterTimeLimit: SHRINK_MS,
    });
    failure.shrunk = details.failed
      ? shrunkOf(details.counterexample, app, target)
      : '(did not fail again when replayed: it depends on earlier cases)';
    if (details.failed && details.counterexamplePath) failure.path = details.counterexamplePath;
  }
  return figures;
}

function strictProperty(app: FuzzApp, target: Target, arbitrary: fc.Arbitrary<FuzzCase>) {
  return fc.asyncProperty(arbitrary, async (fuzzCase) => {
    const outcome = await exercise(app, target, fuzzCase);
    if (outcome.problem) throw new Error(`${outcome.problem}${outcome.cause ? `: ${outcome.cause}` : ''}`);
  });
}

function shrunkOf(counterexample: [FuzzCase] | null, app: FuzzApp, target: Target): string {
  if (!counterexample) return '';
  return describeCase(counterexample[0], requestOf(app, target, counterexample[0], 'shrunk'));
}

// ---------------------------------------------------------------------------
// Prototype pollution: the built-in prototypes must end as they started
// ---------------------------------------------------------------------------

const PROTOTYPES: Record<string, object> = {
  Object: Object.prototype,
  Array: Array.prototype,
  Function: Function.prototype,
  String: String.prototype,
  Number: Number.prototype,
  Boolean: Boolean.prototype,
  Date: Date.prototype,
  RegExp: RegExp.prototype,
  Promise: Promise.prototype,
  Error: Error.prototype,
};

function prototypeSnapshot(): Map<string, unknown> {
  const snapshot = new Map<string, unknown>();
  for (const [name, prototype] of Object.entries(PROTOTYPES)) {
    for (const key of Reflect.ownKeys(prototype)) {
      const descriptor = Object.getOwnPropertyDescriptor(prototype, key)!;
      snapshot.set(`${name}.prototype.${String(key)}`, descriptor.value ?? descriptor.get);
    }
  }
  snapshot.set('Object.getPrototypeOf(Object.prototype)', Object.getPrototypeOf(Object.prototype));
  return snapshot;
}

function prototypeChanges(before: Map<string, unknown>): string[] {
  const after = prototypeSnapshot();
  const changes = [...after]
    .filter(([key, value]) => !before.has(key) || before.get(key) !== value)
    .map(([key]) => `${key} added or changed`);
  changes.push(...[...before.keys()].filter((key) => !after.has(key)).map((key) => `${key} removed`));
  const probe = {} as Record<string, unknown>;
  for (const key of ['polluted', 'isAdmin']) if (probe[key] !== undefined) changes.push(`({}).${key} is ${String(probe[key])}`);
  return changes;
}

// ---------------------------------------------------------------------------

function histogram(statuses: Map<number, number>): string {
  return [...statuses]
    .sort(([a], [b]) => a - b)
    .map(([status, count]) => `${status || 'none'}:${count}`)
    .join(' ');
}

/** --only: the endpoint of that exact name, or else every endpoint whose name contains it. */
function selected(targets: Target[]): Target[] {
  const only = args.only;
  if (only === undefined) return targets;
  const exact = targets.filter((target) => target.name === only);
  return exact.length ? exact : targets.filter((target) => target.name.includes(only));
}

async function main(): Promise<number> {
  const pristine = prototypeSnapshot();
  log(`fuzz: ${runs} cases per endpoint, seed ${seed}, revisions ${revisions.join(',')}${args.only ? `, only "${args.only}"` : ''}`);
  const all: Figures[] = [];
  const pollution: string[] = [];
  const started = performance.now();

  for (const revision of revisions as RevisionNumber[]) {
    const app = await FuzzApp.start(revision, 30_000);
    try {
      const targets = selected(await buildTargets(app));
      if (args.replay && targets.length !== 1)
        throw new Error(`--replay needs --only to name exactly one endpoint; ${targets.length} match`);
      for (const target of targets) {
        const targetStarted = performance.now();
        const figures = await fuzzTarget(app, target);
        const seconds = ((performance.now() - targetStarted) / 1000).toFixed(1);
        if (args.replay) continue;
        all.push(figures);
        const changes = prototypeChanges(pristine);
        if (changes.length) pollution.push(`${target.name}: ${changes.join('; ')}`);
        const verdict = figures.failures.size ? `FAIL (${[...figures.failures.values()].reduce((n, f) => n + f.count, 0)})` : 'ok';
        log(
          `${target.name.padEnd(62)} ${String(figures.runs).padStart(5)} runs  max ${String(Math.round(figures.maxMs)).padStart(5)} ms  ${seconds.padStart(5)} s  ${histogram(figures.statuses)}  ${verdict}`,
        );
      }
    } finally {
      await app.stop();
    }
  }
  HttpClient.close();
  await stopTestDatabaseServer();
  if (args.replay) return 0;

  const failures = all.flatMap((figures) => [...figures.failures.values()]);
  const requests = all.reduce((n, figures) => n + figures.runs, 0);
  const fiveHundreds = all.reduce(
    (n, figures) => n + [...figures.statuses].filter(([status]) => status >= 500).reduce((m, [, count]) => m + count, 0),
    0,
  );
  log();
  log(
    `${all.length} endpoints, ${requests} requests in ${Math.round((performance.now() - started) / 1000)} s: ${fiveHundreds} 5xx, ${failures.reduce((n, f) => n + f.count, 0)} failed cases, slowest ${Math.round(Math.max(0, ...all.map((f) => f.maxMs)))} ms (limit ${SLOW_MS})`,
  );
  for (const failure of failures) {
    log();
    log(`FAIL ${failure.target}: ${failure.problem} (${failure.count} case${failure.count === 1 ? '' : 's'})`);
    if (failure.cause) log(`  cause:    ${failure.cause}`);
    log(`  first:    ${failure.description}`);
    log(`  shrunk:   ${failure.shrunk}`);
    const revision = failure.target.slice(1, 2);
    log(
      `  replay:   npm run fuzz -- --revisions ${revision} --only '${failure.target}' --seed ${seed} --runs ${runs} --replay '${failure.path}'`,
    );
  }
  for (const line of pollution) log(`FAIL prototype pollution after ${line}`);
  return failures.length || pollution.length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(2);
  },
);
