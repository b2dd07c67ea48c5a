/**
 * The submission bodies of a measurement: one per context depth, exactly the fields of the
 * revision-3 submission schema (src/runs/submission/speed-test.schema.ts). Client-side figures are
 * submitted (what a user of the server sees, comparable across engines); engine-reported
 * timings go into the notes next to them.
 */
import { createHash } from 'node:crypto';
import { EVIDENCE_LIMITS, textSample } from '../../runs/submission/evidence.ts';
import type { Hardware } from './hardware.ts';
import type { DepthResult, RoundFigures, Stat } from './measure.ts';
import type { PowerSummary } from './power.ts';
import { reproducedCounts, type Reproduction } from './reproduce.ts';

export interface RunFacts {
  hfId?: string;
  quantization?: string;
  engineName?: string;
  engineVersion?: string;
  backend?: string;
  contextLength?: number;
  commandSnippet?: string;
  hardware: Hardware;
  concurrency: number;
  iterations: number;
  maxTokens: number;
  engineCommit?: string;
  engineBuild?: string;
  power?: PowerSummary;
  notes?: string;
  /** `llm-bench reproduce`: the run measured again; its recipe's flags and workload are the payload's. */
  reproduces?: Reproduction;
}

const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;
const spread = (stat: Stat | undefined) => (stat ? `${round(stat.spreadPct, 1)}%` : 'n/a');

/** What the notes say about how the run was measured (bounded: notes take 2000 characters). */
function measurementNotes(result: DepthResult, facts: RunFacts): string {
  const parts = [
    `Measured with llm-bench: median of ${facts.iterations} iteration${facts.iterations === 1 ? '' : 's'}` +
      (facts.concurrency > 1 ? ` of ${facts.concurrency} concurrent streams (tokSOut is their aggregate decode rate)` : '') +
      `; spread decode ${spread(result.stats.decodeTokS)}, TTFT ${spread(result.stats.ttftMs)}.`,
    `Client-side timings submitted; token counts ${result.tokenCounts === 'server' ? "from the server's usage" : 'estimated from stream events (the server sent no usage)'}.`,
  ];
  const engineDecode = result.stats.engineDecodeTokS;
  if (result.engineTimings && engineDecode) {
    const prefill = result.stats.enginePrefillTokS;
    parts.push(
      `Engine-reported (${result.engineTimings}): decode ${round(engineDecode.median, 1)} tok/s${prefill ? `, prefill ${round(prefill.median, 1)} tok/s` : ''}.`,
    );
  }
  if (facts.power?.gpuPowerWatts && facts.power.probe)
    parts.push(`Power measured by llm-bench with ${facts.power.probe}, averaged per device over the decode windows.`);
  if (result.depth)
    parts.push(`Context depth ${result.contextTokens} tokens primed before the prompt (untimed request, same nonce-led prefix).`);
  if (facts.reproduces) {
    const counts = reproducedCounts(result, facts.reproduces);
    parts.push(
      `Reproduces run ${facts.reproduces.runId} (llm-bench reproduce): ${counts.matches ? `its workload, measured within 5% (prompt ${result.promptTokens}, output ${result.outputTokens}, depth ${result.contextTokens} tokens)` : 'a workload other than its recipe states'}.`,
    );
  }
  if (facts.notes) parts.push(facts.notes);
  return parts.join(' ').slice(0, 2000);
}

export function buildPayload(result: DepthResult, facts: RunFacts): Record<string, unknown> {
  const stats = result.stats;
  const flags = {
    // A reproduction runs the recipe's speed-shaping flags.
    ...(facts.reproduces?.recipe.flags ?? {}),
    ...(facts.commandSnippet ? { commandSnippet: facts.commandSnippet } : {}),
    ...(facts.concurrency > 1 ? { concurrency: facts.concurrency } : {}),
  };
  const counts = facts.reproduces
    ? reproducedCounts(result, facts.reproduces)
    : { promptTokens: result.promptTokens, outputTokens: result.outputTokens, prefillTokens: result.contextTokens };
  return {
    ...(facts.hfId ? { hfId: facts.hfId } : {}),
    hardware: facts.hardware,
    ...(facts.engineName ? { engineName: facts.engineName } : {}),
    ...(facts.quantization ? { quantization: facts.quantization } : {}),
    ...(stats.decodeTokS ? { tokSOut: round(stats.decodeTokS.median) } : {}),
    ...(stats.prefillTokS ? { tokSPrefill: round(stats.prefillTokS.median) } : {}),
    ...(stats.totalTokS ? { tokSTotal: round(stats.totalTokS.median) } : {}),
    ...(stats.ttftMs ? { ttftMs: round(stats.ttftMs.median, 1) } : {}),
    ...(facts.power?.peakVramGb ? { peakVramGb: facts.power.peakVramGb } : {}),
    ...(facts.engineVersion ? { engineVersion: facts.engineVersion.slice(0, 512) } : {}),
    ...(facts.backend ? { backend: facts.backend } : {}),
    promptTokens: counts.promptTokens,
    outputTokens: counts.outputTokens,
    ...(facts.contextLength ? { contextLength: facts.contextLength } : {}),
    batchSize: 1,
    prefillTokens: counts.prefillTokens,
    ...(facts.engineCommit ? { engineCommit: facts.engineCommit } : {}),
    ...(facts.engineBuild ? { engineBuild: facts.engineBuild.slice(0, 256) } : {}),
    ...(facts.power?.gpuPowerWatts ? { gpuPowerWatts: facts.power.gpuPowerWatts, powerSource: 'measured' } : {}),
    notes: measurementNotes(result, facts),
    ...(Object.keys(flags).length ? { engineFlags: flags } : {}),
    ...(facts.reproduces ? { replicates: facts.reproduces.runId } : {}),
    ...evidenceOf(result, facts.concurrency),
  };
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** The round whose decode rate is nearest the median (the submitted tokSOut): its stream is the one pinned by digest. */
function representativeRound(rounds: RoundFigures[], median: number | undefined): number {
  if (median === undefined) return 0;
  let best = 0;
  rounds.forEach((round, index) => {
    if (Math.abs(round.decodeTokS - median) < Math.abs(rounds[best]!.decodeTokS - median)) best = index;
  });
  return best;
}

const roundedStat = (stat: Stat) => ({
  median: round(stat.median),
  min: round(stat.min),
  max: round(stat.max),
  spreadPct: round(stat.spreadPct, 1),
});

/**
 * The verified-run evidence of a measurement (revision 3, DECISIONS.md "Real clients"): the
 * representative stream's prompt and output as SHA-256 and sample, each iteration's figures
 * (`samples`, at most 100) and their statistics, and the engine's own timings where it
 * reported them: the representative stream's object as `timings` (only for one stream at a
 * time: with several, the engine times each request, not their aggregate) and every
 * iteration's beside it.
 */
export function evidenceOf(result: DepthResult, concurrency: number): Record<string, unknown> {
  const streamed = result.streamed;
  if (!streamed.length) return {};
  const chosen = streamed[representativeRound(result.rounds, result.stats.decodeTokS?.median)]!;
  const kept = result.rounds.slice(0, EVIDENCE_LIMITS.samples);
  const samples = kept.map((figures, index) => {
    const text = streamed[index];
    return {
      iteration: index + 1,
      tokSOut: round(figures.decodeTokS),
      ttftMs: round(figures.ttftMs, 1),
      tokSPrefill: round(figures.prefillTokS),
      tokSTotal: round(figures.totalTokS),
      e2eMs: round(figures.e2eMs, 1),
      promptTokens: figures.promptTokens,
      outputTokens: figures.outputTokens,
      ...(figures.engineDecodeTokS !== undefined ? { engineDecodeTokS: round(figures.engineDecodeTokS) } : {}),
      ...(text ? { promptSha256: sha256(text.prompt), outputSha256: sha256(text.output) } : {}),
    };
  });
  const sampleStats = {
    iterations: result.rounds.length,
    concurrency,
    ...Object.fromEntries(Object.entries(result.stats).map(([name, stat]) => [name, roundedStat(stat)])),
  };
  const engine = chosen.engine;
  const summary = engine
    ? { source: engine.source, ...(concurrency === 1 ? { timings: engine.raw } : { streams: concurrency }) }
    : undefined;
  const withIterations = summary && {
    ...summary,
    perIteration: streamed.slice(0, EVIDENCE_LIMITS.samples).map((text) => text.engine?.raw ?? {}),
  };
  // The leaderboard takes at most 64 KB of it: the iterations go first, then the whole.
  const fits = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8') <= EVIDENCE_LIMITS.timingsBytes;
  const engineTimingsRaw = [withIterations, summary].find((candidate) => candidate !== undefined && fits(candidate));
  return {
    promptSha256: sha256(chosen.prompt),
    promptSample: textSample(chosen.prompt),
    outputSha256: sha256(chosen.output),
    outputSample: textSample(chosen.output),
    samples,
    sampleStats,
    ...(engineTimingsRaw ? { engineTimingsRaw } : {}),
  };
}

/** What a payload still lacks before the leaderboard can take it, as flags to pass. */
export function missingForSubmission(
  facts: Pick<RunFacts, 'hfId' | 'quantization' | 'engineName' | 'commandSnippet' | 'concurrency' | 'reproduces'>,
): string[] {
  const missing: string[] = [];
  if (!facts.hfId) missing.push('--hf-id <org/model> (the hub id of the weights served)');
  if (!facts.quantization) missing.push('--quantization <e.g. Q4_K_M>');
  if (!facts.engineName) missing.push('--engine <llama.cpp|vllm|ollama|...>');
  // Revision 3 needs a commandSnippet whenever engineFlags is sent, and concurrency lives there.
  if (facts.concurrency > 1 && !facts.commandSnippet)
    missing.push('--command "<the engine launch command>" (needed to record --concurrency)');
  else if (Object.keys(facts.reproduces?.recipe.flags ?? {}).length > 0 && !facts.commandSnippet)
    missing.push('--command "<the engine launch command>" (needed to record the recipe\'s engine flags)');
  return missing;
}
