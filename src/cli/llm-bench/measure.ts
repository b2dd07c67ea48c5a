/**
 * The measurement: warm-up requests (untimed; they also calibrate the prompt length against
 * the server's token counts), then `iterations` timed rounds of `concurrency` streams each,
 * per context depth. Figures per stream:
 * - TTFT: request sent -> first generated token;
 * - decode tok/s: tokens generated between the first and the last token event / that
 *   window. Tokens come from the server's count; the first event's share (count / events,
 *   one token when each event holds one) arrived at the window's start, so it is left out;
 * - prefill tok/s: prompt tokens processed / TTFT;
 * - end-to-end latency: sent -> stream closed.
 * A round of N streams adds them up: aggregate decode = all window tokens / (last token of
 * any stream - first token of any stream), which is the single-stream figure when N = 1.
 * Each figure is reported as the median over iterations, with its min, max and spread.
 */
import { performance } from 'node:perf_hooks';
import { extendPrompt, newNonce, promptOf, promptWords, wordsFor } from './prompt.ts';
import type { EngineTimings, Streamer, StreamSample } from './stream.ts';

export interface MeasureOptions {
  promptTokens: number;
  maxTokens: number;
  iterations: number;
  warmup: number;
  concurrency: number;
  /** Context depths (tokens ahead of the prompt, 0 = fresh); one result per depth. */
  depths: number[];
  onProgress?: (line: string) => void;
  /** Called with [start, end] performance.now() of every timed round (power sampling). */
  onRound?: (window: { firstTokenAt: number; lastTokenAt: number }) => void;
}

export interface RoundFigures {
  ttftMs: number;
  decodeTokS: number;
  prefillTokS: number;
  e2eMs: number;
  totalTokS: number;
  /** Per stream (the median stream's). */
  promptTokens: number;
  outputTokens: number;
  /** Tokens already in context before the prompt (depth runs: the primed prefix). */
  contextTokens: number;
  engineDecodeTokS?: number;
  enginePrefillTokS?: number;
}

export interface Stat {
  median: number;
  min: number;
  max: number;
  /** (max - min) / median, in percent. */
  spreadPct: number;
}

export type FigureName = 'ttftMs' | 'decodeTokS' | 'prefillTokS' | 'e2eMs' | 'totalTokS' | 'engineDecodeTokS' | 'enginePrefillTokS';

export interface DepthResult {
  depth: number;
  rounds: RoundFigures[];
  stats: Partial<Record<FigureName, Stat>>;
  promptTokens: number;
  outputTokens: number;
  contextTokens: number;
  /** Where token counts came from. */
  tokenCounts: 'server' | 'estimated from stream events';
  engineTimings?: EngineTimings['source'];
  /** Per round (as `rounds`), what its first stream sent and got back: the evidence submitted with the run. */
  streamed: StreamedText[];
}

/** A timed stream's prompt, generated text and the engine's own timings. */
export interface StreamedText {
  prompt: string;
  output: string;
  engine?: EngineTimings;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export function stat(values: number[]): Stat | undefined {
  if (!values.length) return undefined;
  const mid = median(values);
  const min = Math.min(...values);
  const max = Math.max(...values);
  return { median: mid, min, max, spreadPct: mid > 0 ? ((max - min) / mid) * 100 : 0 };
}

/** Output tokens of a stream: the server's count, else one per content event. */
const outputTokensOf = (sample: StreamSample) => sample.completionTokens ?? sample.contentEvents;

/** Tokens generated after the first token event (the decode window's tokens). */
export function windowTokens(sample: StreamSample): number {
  const tokens = outputTokensOf(sample);
  return sample.contentEvents > 1 ? (tokens * (sample.contentEvents - 1)) / sample.contentEvents : 0;
}

/**
 * The figures of one round from its streams. `newPromptTokens` of each stream is what its
 * timed request had to process (the whole prompt, or the part after a primed context).
 */
export function roundFigures(streams: { sample: StreamSample; newPromptTokens: number; contextTokens: number }[]): RoundFigures {
  const samples = streams.map((stream) => stream.sample);
  const firstToken = Math.min(...samples.map((s) => s.firstTokenAt));
  const lastToken = Math.max(...samples.map((s) => s.lastTokenAt));
  const started = Math.min(...samples.map((s) => s.startedAt));
  const ended = Math.max(...samples.map((s) => s.endedAt));
  const ttfts = samples.map((s) => s.firstTokenAt - s.startedAt);
  const decodeWindowS = (lastToken - firstToken) / 1000;
  const windowTotal = samples.reduce((sum, s) => sum + windowTokens(s), 0);
  const promptTotal = streams.reduce((sum, s) => sum + s.newPromptTokens, 0);
  const outputTotal = samples.reduce((sum, s) => sum + outputTokensOf(s), 0);
  const engines = samples.map((s) => s.engine).filter((e): e is EngineTimings => e !== undefined && e.decodeMs > 0);
  const engineDecode =
    engines.length === samples.length ? engines.reduce((sum, e) => sum + e.decodeTokens / (e.decodeMs / 1000), 0) : undefined;
  const prefillEngines = engines.filter((e) => e.promptTokens && e.promptMs);
  const enginePrefill =
    prefillEngines.length === samples.length
      ? prefillEngines.reduce((sum, e) => sum + e.promptTokens!, 0) / (Math.max(...prefillEngines.map((e) => e.promptMs!)) / 1000)
      : undefined;
  return {
    ttftMs: median(ttfts),
    decodeTokS: decodeWindowS > 0 ? windowTotal / decodeWindowS : NaN,
    prefillTokS: promptTotal / (Math.max(...ttfts) / 1000),
    e2eMs: ended - started,
    totalTokS: (promptTotal + outputTotal) / ((ended - started) / 1000),
    promptTokens: Math.round(median(streams.map((s) => s.newPromptTokens))),
    outputTokens: Math.round(median(samples.map(outputTokensOf))),
    contextTokens: Math.round(median(streams.map((s) => s.contextTokens))),
    ...(engineDecode !== undefined ? { engineDecodeTokS: engineDecode } : {}),
    ...(enginePrefill !== undefined ? { enginePrefillTokS: enginePrefill } : {}),
  };
}

const FIGURES: FigureName[] = ['ttftMs', 'decodeTokS', 'prefillTokS', 'e2eMs', 'totalTokS', 'engineDecodeTokS', 'enginePrefillTokS'];

export function summarise(depth: number, rounds: RoundFigures[], samples: StreamSample[], streamed: StreamedText[] = []): DepthResult {
  const stats: DepthResult['stats'] = {};
  for (const name of FIGURES) {
    const values = rounds.map((round) => round[name]).filter((value): value is number => value !== undefined && Number.isFinite(value));
    const summary = stat(values);
    if (summary) stats[name] = summary;
  }
  return {
    depth,
    rounds,
    stats,
    promptTokens: Math.round(median(rounds.map((r) => r.promptTokens))),
    outputTokens: Math.round(median(rounds.map((r) => r.outputTokens))),
    contextTokens: Math.round(median(rounds.map((r) => r.contextTokens))),
    tokenCounts: samples.every((s) => s.completionTokens !== undefined) ? 'server' : 'estimated from stream events',
    ...(samples[0]?.engine ? { engineTimings: samples[0].engine.source } : {}),
    streamed,
  };
}

const fixed = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : '-');

export async function measure(streamer: Streamer, options: MeasureOptions): Promise<DepthResult[]> {
  const progress = options.onProgress ?? (() => {});
  // Tokens per filler word, corrected from the server's count after each stream.
  let tokensPerWord = 1;
  const learn = (prompt: string, promptTokens: number | undefined) => {
    if (promptTokens && promptTokens > 0) tokensPerWord = promptTokens / promptWords(prompt);
  };

  /** One stream: with a depth, the context is primed untimed first, then extended by the prompt. */
  async function stream(depth: number) {
    const nonce = newNonce();
    if (depth === 0) {
      const prompt = promptOf(nonce, options.promptTokens, tokensPerWord);
      const sample = await streamer.run(prompt, options.maxTokens);
      learn(prompt, sample.promptTokens);
      return { prompt, sample, newPromptTokens: sample.promptTokens ?? Math.round(promptWords(prompt) * tokensPerWord), contextTokens: 0 };
    }
    const context = promptOf(nonce, depth, tokensPerWord);
    const primed = await streamer.run(context, 1);
    learn(context, primed.promptTokens);
    const prompt = extendPrompt(context, nonce, wordsFor(options.promptTokens, tokensPerWord));
    const sample = await streamer.run(prompt, options.maxTokens);
    const contextTokens = primed.promptTokens ?? Math.round(promptWords(context) * tokensPerWord);
    const allTokens = sample.promptTokens ?? Math.round(promptWords(prompt) * tokensPerWord);
    // Only the tokens after the primed context count as prefilled; if the engine did not reuse
    // its cache, TTFT also holds the context and the prefill rate comes out low, never high.
    return { prompt, sample, newPromptTokens: Math.max(1, allTokens - contextTokens), contextTokens };
  }

  for (let i = 0; i < options.warmup; i += 1) {
    await stream(0);
    progress(`warm-up ${i + 1}/${options.warmup} done`);
  }

  const results: DepthResult[] = [];
  for (const depth of options.depths) {
    const rounds: RoundFigures[] = [];
    const samples: StreamSample[] = [];
    const streamed: StreamedText[] = [];
    for (let i = 0; i < options.iterations; i += 1) {
      const started = performance.now();
      const streams = await Promise.all(Array.from({ length: options.concurrency }, () => stream(depth)));
      const round = roundFigures(streams);
      rounds.push(round);
      samples.push(...streams.map((s) => s.sample));
      const [first] = streams;
      streamed.push({
        prompt: first!.prompt,
        output: first!.sample.output,
        ...(first!.sample.engine ? { engine: first!.sample.engine } : {}),
      });
      options.onRound?.({
        firstTokenAt: Math.min(...streams.map((s) => s.sample.firstTokenAt)),
        lastTokenAt: Math.max(...streams.map((s) => s.sample.lastTokenAt)),
      });
      progress(
        `${depth ? `depth ${depth} ` : ''}iteration ${i + 1}/${options.iterations}: decode ${fixed(round.decodeTokS)} tok/s, TTFT ${fixed(round.ttftMs, 0)} ms, ` +
          `prefill ${fixed(round.prefillTokS)} tok/s, ${round.outputTokens} tokens in ${fixed((performance.now() - started) / 1000, 2)} s`,
      );
    }
    results.push(summarise(depth, rounds, samples, streamed));
  }
  return results;
}
