/**
 * The submission bodies of a measurement: one per context depth, exactly the fields of the
 * revision-3 submission schema (src/runs/submission/speed-test.schema.ts). Client-side figures are
 * submitted (what a user of the server sees, comparable across engines); engine-reported
 * timings go into the notes next to them.
 */
import type { Hardware } from './hardware.ts';
import type { DepthResult, Stat } from './measure.ts';
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
  power?: { gpuPowerWatts?: number[]; peakVramGb?: number };
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
    ...(facts.power?.gpuPowerWatts ? { gpuPowerWatts: facts.power.gpuPowerWatts } : {}),
    notes: measurementNotes(result, facts),
    ...(Object.keys(flags).length ? { engineFlags: flags } : {}),
    ...(facts.reproduces ? { replicates: facts.reproduces.runId } : {}),
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
