/**
 * `llm-bench measure` and `llm-bench submit`: flags in, a report out, an exit code back.
 * The process entry (src/cli/llm-bench.ts) only wires stdout/stderr and exits; tests call
 * `main` in-process with their own streams.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { resolveLeaderboard } from './config.ts';
import { chooseModel, detectEngine, ollamaQuantization } from './engine.ts';
import { CliError, EXIT, usageError } from './errors.ts';
import { detectHardware, type Hardware } from './hardware.ts';
import { powerEnv, startPowerSampling, type PowerEnv } from './power.ts';
import { mapToCatalogue } from './catalogue.ts';
import { createLeaderboardClient, type LeaderboardClient } from './leaderboard.ts';
import { measure, type DepthResult } from './measure.ts';
import { MAIN_HELP, MEASURE_HELP, REPRODUCE_HELP, SUBMIT_HELP, resultTable } from './output.ts';
import { comparisonLines, readReproduction, recipeMeasureArgs, type Reproduction } from './reproduce.ts';
import { buildPayload, missingForSubmission } from './payload.ts';
import { loginCommand } from './login.ts';
import { signInAndFindSetup, hardwareOfSetup } from './setups.ts';
import { createStreamer, type ApiKind } from './stream.ts';

export interface Io {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: NodeJS.ProcessEnv;
  /** Hardware detection, swappable in tests (default: the real machine). */
  detectHardware?: typeof detectHardware;
  /** The power tools (default: found through env, see powerEnv). */
  power?: PowerEnv;
}

const SUBMIT_OPTIONS = {
  'api-key': { type: 'string' },
  leaderboard: { type: 'string' },
  wait: { type: 'boolean' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

const MEASURE_OPTIONS = {
  ...SUBMIT_OPTIONS,
  'base-url': { type: 'string' },
  api: { type: 'string' },
  model: { type: 'string' },
  'engine-key': { type: 'string' },
  timeout: { type: 'string' },
  'prompt-tokens': { type: 'string' },
  'max-tokens': { type: 'string' },
  iterations: { type: 'string' },
  warmup: { type: 'string' },
  concurrency: { type: 'string' },
  depth: { type: 'string' },
  'hf-id': { type: 'string' },
  quantization: { type: 'string' },
  engine: { type: 'string' },
  'engine-version': { type: 'string' },
  'engine-commit': { type: 'string' },
  'engine-build': { type: 'string' },
  'no-power': { type: 'boolean' },
  backend: { type: 'string' },
  'context-length': { type: 'string' },
  command: { type: 'string' },
  notes: { type: 'string' },
  'hardware-file': { type: 'string' },
  setup: { type: 'string' },
  out: { type: 'string' },
  submit: { type: 'boolean' },
} as const satisfies ParseArgsConfig['options'];

function parse<O extends ParseArgsConfig['options']>(args: string[], options: O, allowPositionals: boolean) {
  try {
    return parseArgs({ args, options, allowPositionals, strict: true });
  } catch (error) {
    throw usageError(`${(error as Error).message.split('\n')[0]} (see --help)`);
  }
}

/** A whole number flag within bounds, or a usage error naming the flag. */
function integer(value: string | undefined, flag: string, fallback: number, min: number, max = 10_000_000): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!/^\d+$/.test(value.trim()) || number < min || number > max)
    throw usageError(`--${flag} must be a whole number from ${min} to ${max} (got "${value}").`);
  return number;
}

function depthsOf(value: string | undefined): number[] {
  if (value === undefined) return [0];
  const depths = value.split(',').map((part) => integer(part.trim(), 'depth', 0, 0, 2_000_000));
  return [...new Set(depths)];
}

function readJsonFile(file: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw usageError(`Cannot read ${what} ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw usageError(`${what[0]!.toUpperCase()}${what.slice(1)} ${file} is not JSON.`);
  }
}

function hardwareFromFile(file: string): Hardware {
  const value = readJsonFile(file, 'hardware file') as Record<string, unknown>;
  const hardware = (value && typeof value === 'object' && 'hardware' in value ? value.hardware : value) as Record<string, unknown>;
  if (!hardware || typeof hardware !== 'object' || typeof hardware.hwClass !== 'string') {
    throw usageError(
      `The hardware file ${file} needs an object with hwClass (DISCRETE_GPU, UNIFIED or CPU_ONLY), as the submission's "hardware".`,
    );
  }
  return hardware as Hardware;
}

/** The prediction query of a machine and model: the hardware's own fields, as a submission names them. */
export function predictionQuery(
  hardware: Hardware,
  facts: { hfId?: string; quantization?: string; engineName?: string; concurrency: number },
  depth: number,
): Record<string, string> | null {
  if (!facts.hfId || !facts.quantization) return null;
  const hw = hardware as Record<string, any>;
  const query: Record<string, string> = { hfId: facts.hfId, quantization: facts.quantization, hwClass: hw.hwClass };
  const put = (name: string, value: unknown) => {
    if ((typeof value === 'string' && value.trim() !== '') || (typeof value === 'number' && value > 0)) query[name] = String(value);
  };
  if (hw.hwClass === 'DISCRETE_GPU') {
    const slots: { gpuName: string; count: number; vramGb: number }[] | undefined = hw.gpus;
    put('gpuName', slots?.[0]?.gpuName ?? hw.gpuName);
    put('gpuCount', slots ? slots.reduce((sum, slot) => sum + slot.count, 0) : hw.gpuCount);
    put('vramGb', slots?.[0]?.vramGb ?? hw.vramGb);
  } else if (hw.hwClass === 'UNIFIED') {
    for (const name of ['chipVendor', 'chipFamily', 'chipVariant', 'unifiedMemoryGb']) put(name, hw[name]);
  } else {
    put('cpu', hw.cpu);
    put('ramGb', hw.ramGb);
  }
  put('engineName', facts.engineName);
  put('contextDepth', depth);
  put('concurrency', facts.concurrency);
  return query;
}

const tokS = (value: number) => `${value.toFixed(1)} tok/s`;

/** One line of a prediction: decode tok/s with its interval, memory, and what it rests on. */
function predictionLine(answer: Record<string, any>): string {
  const { tokSOut, fits, memoryNeededGb } = answer.prediction;
  const fitsText = fits === true ? 'fits' : fits === false ? 'does NOT fit' : 'fit not known';
  return `prediction (not a measurement): ${tokS(tokSOut.estimate)} decode (80% interval ${tokSOut.low}-${tokSOut.high}), ${fitsText} (needs ~${memoryNeededGb} GB), from ${answer.basis.runs} runs on the board`;
}

/** The measured decode speed against the prediction, once measured. */
export function measuredAgainstPrediction(measured: number, answer: Record<string, any>): string {
  const { estimate, low, high } = answer.prediction.tokSOut;
  const off = ((measured - estimate) / estimate) * 100;
  const where = measured < low ? 'below the 80% interval' : measured > high ? 'above the 80% interval' : 'inside the 80% interval';
  return `Measured ${tokS(measured)} decode against the predicted ${tokS(estimate)} (${low}-${high}): ${off >= 0 ? '+' : ''}${off.toFixed(0)}%, ${where}.`;
}

function describeHardware(hardware: Hardware): string {
  const hw = hardware as Record<string, any>;
  if (hw.hwClass === 'DISCRETE_GPU') {
    const cards = hw.gpus
      ? hw.gpus.map((g: any) => `${g.count} x ${g.gpuName} ${g.vramGb} GB`).join(' + ')
      : `${hw.gpuCount ?? 1} x ${hw.gpuName} ${hw.vramGb} GB`;
    return `DISCRETE_GPU ${cards}`;
  }
  if (hw.hwClass === 'UNIFIED') return `UNIFIED ${hw.chipVendor} ${hw.chipFamily} ${hw.chipVariant}, ${hw.unifiedMemoryGb} GB`;
  return `CPU_ONLY ${hw.cpu}, ${hw.ramGb} GB RAM`;
}

/** Dry-runs then submits each payload, reporting as it goes; answers what the server said. */
async function dryRunAndSubmit(client: LeaderboardClient, payloads: Record<string, unknown>[], io: Io, json: boolean) {
  const outcomes: { dryRun: unknown; submitted: { id: unknown; url: string; replayed: boolean } }[] = [];
  for (const [index, payload] of payloads.entries()) {
    const label = payloads.length > 1 ? ` ${index + 1}/${payloads.length}` : '';
    const dryRun = await client.dryRun(payload);
    const verdict = dryRun.plausibility;
    if (!json) {
      io.stdout(`\nDry-run${label}: valid. Normalised payload:\n${JSON.stringify(dryRun.parsed, null, 2)}\n`);
      if (verdict)
        io.stdout(
          `Plausibility: ${verdict.verdict}${verdict.decodeBoundTokS ? ` (decode bound ${verdict.decodeBoundTokS} tok/s)` : ''}${verdict.reason ? `: ${verdict.reason}` : ''}\n`,
        );
    }
    const verification = dryRun.verification;
    if (!json && verification)
      io.stdout(
        verification.verified
          ? 'Evidence: verified (the engine timings agree with the figures, the build is named).\n'
          : `Evidence: not verified: ${verification.issues.join('; ')}.\n`,
      );
    io.stderr(
      `dry-run${label}: valid${verdict ? `, plausibility ${verdict.verdict}` : ''}${verification ? `, ${verification.verified ? 'verified' : 'not verified'}` : ''}\n`,
    );
    const stored = await client.submit(payload);
    outcomes.push({ dryRun, submitted: { id: stored.run.id, url: stored.url, replayed: stored.replayed } });
    if (!json)
      io.stdout(`Submitted${label}${stored.replayed ? ' (already stored earlier: the same run, not a duplicate)' : ''}: ${stored.url}\n`);
  }
  return outcomes;
}

/** `measure`, or with `reproduction` the measurement `reproduce` runs (args: the recipe's flags, then the caller's). */
async function measureCommand(args: string[], io: Io, reproduction?: Reproduction): Promise<number> {
  const { values: flags } = parse(args, MEASURE_OPTIONS, false);
  if (flags.help) {
    io.stdout(MEASURE_HELP);
    return EXIT.ok;
  }
  const baseUrl = flags['base-url']?.trim().replace(/\/+$/, '').replace(/\/v1$/i, '');
  if (!baseUrl) throw usageError("measure needs --base-url, the engine's address (e.g. http://localhost:8080).");
  if (!/^https?:\/\/[^/]/.test(baseUrl)) throw usageError(`--base-url "${baseUrl}" is not an http(s) URL.`);
  if (flags.api !== undefined && flags.api !== 'openai' && flags.api !== 'ollama') throw usageError('--api must be openai or ollama.');
  if (flags['hf-id'] !== undefined && !/^[^/\s]+\/[^/\s]+$/.test(flags['hf-id']))
    throw usageError(`--hf-id "${flags['hf-id']}" is not a hub id of the form <org>/<model>.`);
  const options = {
    promptTokens: integer(flags['prompt-tokens'], 'prompt-tokens', 512, 1),
    maxTokens: integer(flags['max-tokens'], 'max-tokens', 256, 2),
    iterations: integer(flags.iterations, 'iterations', 3, 1, 1000),
    warmup: integer(flags.warmup, 'warmup', 1, 0, 100),
    concurrency: integer(flags.concurrency, 'concurrency', 1, 1, 1024),
    depths: depthsOf(flags.depth),
  };
  const timeoutMs = integer(flags.timeout, 'timeout', 300, 1, 86_400) * 1000;
  const contextLengthFlag = flags['context-length'] === undefined ? undefined : integer(flags['context-length'], 'context-length', 0, 1);
  // Everything that can be wrong with the submission is said before minutes of measuring.
  const leaderboard = resolveLeaderboard(flags, io.env, Boolean(flags.submit));
  const client = createLeaderboardClient({ ...leaderboard, wait: flags.wait, log: (line) => io.stderr(`${line}\n`) });
  const hardwareFile = flags['hardware-file'] ? hardwareFromFile(flags['hardware-file']) : undefined;

  const engine = await detectEngine(baseUrl, {
    api: flags.api as ApiKind | undefined,
    apiKey: flags['engine-key'],
    timeoutMs: Math.min(timeoutMs, 10_000),
  });
  const model = chooseModel(engine, flags.model);
  const quantization =
    flags.quantization ?? engine.quantization ?? (engine.engineName === 'ollama' ? await ollamaQuantization(baseUrl, model) : undefined);
  const setup = flags.setup ? await signInAndFindSetup(client.base, flags.setup, io.env) : undefined;
  const facts = {
    hfId: flags['hf-id'] ?? (/^[^/\s:]+\/[^/\s:]+$/.test(model) && !/\.gguf$/i.test(model) ? model : undefined),
    quantization: quantization ?? setup?.quantization,
    engineName: flags.engine ?? engine.engineName ?? setup?.engineName ?? reproduction?.recipe.engine.name,
    engineVersion: flags['engine-version'] ?? engine.engineVersion,
    engineCommit: flags['engine-commit'] ?? engine.engineCommit,
    engineBuild: flags['engine-build'],
    commandSnippet: flags.command,
    concurrency: options.concurrency,
    reproduces: reproduction,
  };
  const missing = missingForSubmission(facts);
  if (flags.submit && missing.length) throw usageError(`To submit, also pass ${missing.join(', ')}.`);

  let detected: Awaited<ReturnType<typeof detectHardware>> | undefined;
  let hardware: Hardware;
  let hardwareSource: string;
  if (hardwareFile) [hardware, hardwareSource] = [hardwareFile, flags['hardware-file']!];
  else if (setup) [hardware, hardwareSource] = [hardwareOfSetup(setup), `saved setup "${flags.setup}"`];
  else {
    detected = await (io.detectHardware ?? detectHardware)();
    [hardware, hardwareSource] = [detected.hardware, detected.source];
  }
  const catalogueNotes: string[] = [];
  try {
    const context = await client.agentContext();
    const mapped = mapToCatalogue(hardware, context.hardwareOptions ?? {});
    hardware = mapped.hardware;
    catalogueNotes.push(...mapped.notes);
  } catch (error) {
    if (flags.submit) throw error;
    catalogueNotes.push(`names not checked against the catalogue (${(error as Error).message})`);
  }

  io.stderr(
    `engine: ${facts.engineName ?? 'unknown engine'}${facts.engineVersion ? ` ${facts.engineVersion}` : ''} at ${baseUrl} (${engine.api} API${engine.detectedBy ? `, from ${engine.detectedBy}` : ''}), model ${model}\n` +
      `hardware: ${describeHardware(hardware)} (${hardwareSource})${catalogueNotes.length ? `; ${catalogueNotes.join('; ')}` : ''}\n`,
  );

  // The leaderboard's prediction for this machine, before measuring (skipped quietly when it
  // cannot be reached or cannot place the model or device).
  const query = predictionQuery(hardware, facts, options.depths[0] ?? 0);
  const prediction = query ? await client.prediction(query) : null;
  if (prediction) io.stderr(`${predictionLine(prediction)}\n`);

  const streamer = createStreamer({ baseUrl, api: engine.api, model, apiKey: flags['engine-key'], timeoutMs });
  const sampler = flags['no-power'] ? undefined : await startPowerSampling(hardware, io.power ?? powerEnv(io.env));
  io.stderr(
    sampler ? `power: sampled with ${sampler.probe} while measuring\n` : 'power: no probe answered for this hardware; none measured\n',
  );
  const windows: { firstTokenAt: number; lastTokenAt: number }[] = [];
  let results: DepthResult[];
  try {
    results = await measure(streamer, {
      ...options,
      onProgress: (line) => io.stderr(`${line}\n`),
      onRound: (window) => windows.push(window),
    });
  } finally {
    await sampler?.stop();
  }
  const power = sampler?.summary(windows);
  if (power?.note) io.stderr(`power: ${power.note}\n`);
  if (streamer.extrasRefused) io.stderr('note: the engine refused stream_options / ignore_eos; measured without them\n');

  const runFacts = {
    ...facts,
    hardware,
    backend: flags.backend ?? detected?.backend ?? setup?.backend,
    contextLength: contextLengthFlag ?? engine.contextLength ?? setup?.contextLength,
    iterations: options.iterations,
    maxTokens: options.maxTokens,
    power,
    notes: flags.notes,
  };
  const payloads = results.map((result) => buildPayload(result, runFacts));

  if (flags.out) {
    try {
      writeFileSync(flags.out, `${JSON.stringify(payloads.length === 1 ? payloads[0] : payloads, null, 2)}\n`);
    } catch (error) {
      throw usageError(`Cannot write ${flags.out} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`);
    }
    io.stderr(`saved ${payloads.length} payload${payloads.length === 1 ? '' : 's'} to ${flags.out}\n`);
  }
  const comparison = reproduction ? comparisonLines(results, reproduction) : [];
  const measuredDecode = results[0]?.stats.decodeTokS?.median;
  const againstPrediction =
    prediction && measuredDecode && options.concurrency === 1 ? measuredAgainstPrediction(measuredDecode, prediction) : undefined;
  if (!flags.json) {
    for (const result of results) io.stdout(`\n${resultTable(result, options.concurrency)}\n`);
    for (const line of comparison) io.stdout(`\n${line}\n`);
    if (againstPrediction) io.stdout(`\n${againstPrediction}\n`);
    if (!flags.submit) {
      io.stdout(
        `\nPayload${payloads.length > 1 ? 's' : ''} (not submitted; pass --submit, or save with --out and run llm-bench submit):\n${JSON.stringify(payloads.length === 1 ? payloads[0] : payloads, null, 2)}\n`,
      );
      if (missing.length) io.stdout(`To submit, also pass ${missing.join(', ')}.\n`);
    }
  }
  const outcomes = flags.submit ? await dryRunAndSubmit(client, payloads, io, Boolean(flags.json)) : undefined;
  if (flags.json)
    io.stdout(
      `${JSON.stringify(
        {
          engine: { ...engine, model },
          hardware,
          results: results.map(({ streamed: _texts, ...figures }) => figures),
          payloads,
          ...(reproduction
            ? {
                reproduces: {
                  runId: reproduction.runId,
                  originalTokSOut: reproduction.originalTokSOut,
                  recipe: reproduction.recipe,
                  comparison,
                },
              }
            : {}),
          ...(prediction ? { prediction: { ...prediction, ...(againstPrediction ? { comparison: againstPrediction } : {}) } } : {}),
          ...(outcomes ? { submissions: outcomes } : {}),
        },
        null,
        2,
      )}\n`,
    );
  return EXIT.ok;
}

/** The payloads in a saved file: one payload, a list, or `llm-bench measure --json` output. */
export function payloadsOf(value: unknown): Record<string, unknown>[] {
  const list = Array.isArray(value)
    ? value
    : value && typeof value === 'object' && Array.isArray((value as { payloads?: unknown }).payloads)
      ? (value as { payloads: unknown[] }).payloads
      : [value];
  if (!list.length || !list.every((item) => item && typeof item === 'object' && !Array.isArray(item))) return [];
  return list as Record<string, unknown>[];
}

async function submitCommand(args: string[], io: Io): Promise<number> {
  const { values: flags, positionals } = parse(args, SUBMIT_OPTIONS, true);
  if (flags.help) {
    io.stdout(SUBMIT_HELP);
    return EXIT.ok;
  }
  if (positionals.length !== 1) throw usageError('submit takes one file: llm-bench submit payload.json');
  const payloads = payloadsOf(readJsonFile(positionals[0]!, 'payload file'));
  if (!payloads.length) throw usageError(`${positionals[0]} holds no payload object (save one with llm-bench measure --out FILE).`);
  const client = createLeaderboardClient({
    ...resolveLeaderboard(flags, io.env, true),
    wait: flags.wait,
    log: (line) => io.stderr(`${line}\n`),
  });
  const outcomes = await dryRunAndSubmit(client, payloads, io, Boolean(flags.json));
  if (flags.json) io.stdout(`${JSON.stringify({ submissions: outcomes }, null, 2)}\n`);
  return EXIT.ok;
}

async function reproduceCommand(args: string[], io: Io): Promise<number> {
  const { values: flags, positionals } = parse(args, MEASURE_OPTIONS, true);
  if (flags.help) {
    io.stdout(REPRODUCE_HELP);
    return EXIT.ok;
  }
  if (positionals.length !== 1) throw usageError('reproduce takes one run id: llm-bench reproduce <run id> --base-url URL');
  const client = createLeaderboardClient({ ...resolveLeaderboard(flags, io.env, false), log: (line) => io.stderr(`${line}\n`) });
  const reproduction = await readReproduction(client, positionals[0]);
  const { recipe } = reproduction;
  io.stderr(
    `reproducing run ${reproduction.runId}: ${recipe.model.hfId} ${recipe.model.quantization} with ${recipe.engine.name}${recipe.engine.version ? ` ${recipe.engine.version}` : ''}, ` +
      `${recipe.workload.promptTokens} prompt / ${recipe.workload.outputTokens} output tokens at depth ${recipe.workload.prefillTokens}, ${recipe.workload.concurrency} in flight\n`,
  );
  return measureCommand([...recipeMeasureArgs(reproduction), ...args.filter((arg) => arg !== positionals[0])], io, reproduction);
}

export async function main(argv: string[], io: Io): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'measure':
      return measureCommand(rest, io);
    case 'submit':
      return submitCommand(rest, io);
    case 'reproduce':
      return reproduceCommand(rest, io);
    case 'login':
      return loginCommand(rest, io);
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      io.stdout(MAIN_HELP);
      return command === undefined ? EXIT.usage : EXIT.ok;
    default:
      throw usageError(`Unknown command "${command}": use measure, submit, reproduce or login (llm-bench --help).`);
  }
}

/** Runs `main` and turns any failure into one line on stderr and its exit code. */
export async function run(argv: string[], io: Io): Promise<number> {
  try {
    return await main(argv, io);
  } catch (error) {
    io.stderr(`llm-bench: ${error instanceof Error ? error.message : String(error)}\n`);
    return error instanceof CliError ? error.exitCode : EXIT.internal;
  }
}
