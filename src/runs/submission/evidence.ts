import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { SPEC_COUNTER_FLAGS } from '../../constants.ts';

/**
 * Verified-run evidence on speed tests (revision 3, DECISIONS.md "Real clients"): what a
 * measuring client saw (the prompt and output as SHA-256 and a sample, the engine's own
 * timings, the per-iteration samples) and the check that the evidence agrees with itself
 * and with the figures submitted. A run is verified when nothing in that check is amiss.
 */

export const EVIDENCE_LIMITS = {
  /** promptSample and outputSample, in UTF-8 bytes: a sample is the text's first 4 KB. */
  sampleBytes: 4096,
  /** engineTimingsRaw as JSON text. */
  timingsBytes: 64 * 1024,
  /** Per-iteration results in `samples`. */
  samples: 100,
  /** Whole prompt or output text a client may send to be hashed (never stored). */
  textChars: 1_000_000,
  /** Relative difference between the engine's own timings and the submitted figures. */
  timingTolerance: 0.05,
} as const;

const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');

const sha256Hex = z
  .string({ error: 'Must be a string' })
  .regex(/^[0-9a-fA-F]{64}$/, 'Must be a SHA-256 digest in hex (64 characters)')
  .transform((hex) => hex.toLowerCase());

const sample = z
  .string({ error: 'Must be a string' })
  .refine((text) => Buffer.byteLength(text, 'utf8') <= EVIDENCE_LIMITS.sampleBytes, `Must be at most ${EVIDENCE_LIMITS.sampleBytes} bytes`);

const wholeText = z
  .string({ error: 'Must be a string' })
  .max(EVIDENCE_LIMITS.textChars, `Must be at most ${EVIDENCE_LIMITS.textChars} characters`);

const jsonRecord = z.record(z.string(), z.unknown(), { error: 'Must be an object' });

/** The evidence fields of a submission (their names are EVIDENCE_FIELDS), each optional. */
export function evidenceFieldSchemas() {
  return {
    prompt: wholeText
      .optional()
      .meta({ description: 'The whole prompt measured: stored only as promptSha256 and promptSample (its first 4 KB), never whole' }),
    outputText: wholeText
      .optional()
      .meta({ description: 'The whole output generated: stored only as outputSha256 and outputSample, never whole' }),
    promptSha256: sha256Hex.optional().meta({ description: 'SHA-256 (hex) of the whole prompt' }),
    promptSample: sample.optional().meta({ description: 'The prompt, or its first 4 KB' }),
    outputSha256: sha256Hex.optional().meta({ description: 'SHA-256 (hex) of the whole output' }),
    outputSample: sample.optional().meta({ description: 'The output, or its first 4 KB' }),
    engineTimingsRaw: z
      .union([jsonRecord, z.array(jsonRecord, { error: 'Must be an object or an array of objects' })], {
        error: 'Must be an object (or llama-bench JSON, an array of objects)',
      })
      .refine((value) => jsonBytes(value) <= EVIDENCE_LIMITS.timingsBytes, 'Must be at most 64 KB as JSON')
      .optional()
      .meta({
        description:
          "The engine's own timings as it printed them: llama-bench JSON, llama.cpp `timings`, Ollama `eval_*`, vLLM/SGLang benchmark JSON (at most 64 KB)",
      }),
    samples: z
      .array(jsonRecord, { error: 'Must be an array of objects' })
      .max(EVIDENCE_LIMITS.samples, `At most ${EVIDENCE_LIMITS.samples} entries`)
      .optional()
      .meta({ description: 'Per-iteration results (e.g. `{ tokSOut, ttftMs }` per iteration), at most 100' }),
    sampleStats: jsonRecord
      .refine((value) => jsonBytes(value) <= EVIDENCE_LIMITS.timingsBytes, 'Must be at most 64 KB as JSON')
      .optional()
      .meta({ description: 'Statistics over the samples (median, min, max, stddev, ...)' }),
  };
}

/** The spec-decoding counters `engineFlags` may carry (revision 3). */
export function specCounterFlagSchemas(
  int: (min: number) => z.ZodNumber,
  unit: () => z.ZodNumber,
  nonNegative: () => z.ZodNumber,
): Record<(typeof SPEC_COUNTER_FLAGS)[number], z.ZodNumber> {
  return {
    specDraftTokens: int(0),
    specAcceptedTokens: int(0),
    specAcceptanceRate: unit(),
    specMeanAcceptedLength: nonNegative(),
  };
}

export interface EvidenceFields {
  prompt?: string;
  outputText?: string;
  promptSha256?: string;
  promptSample?: string;
  outputSha256?: string;
  outputSample?: string;
  engineTimingsRaw?: Record<string, unknown> | Record<string, unknown>[];
  samples?: Record<string, unknown>[];
  sampleStats?: Record<string, unknown>;
}

/** The first `EVIDENCE_LIMITS.sampleBytes` bytes of a text, never cutting a character in two. */
export function textSample(text: string): string {
  if (Buffer.byteLength(text, 'utf8') <= EVIDENCE_LIMITS.sampleBytes) return text;
  let out = '';
  let bytes = 0;
  for (const char of text) {
    const size = Buffer.byteLength(char, 'utf8');
    if (bytes + size > EVIDENCE_LIMITS.sampleBytes) break;
    out += char;
    bytes += size;
  }
  return out;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * The fields with the whole texts replaced by their digest and sample (never kept whole); a
 * digest or sample the submitter also gave is kept, and a digest that differs is an issue.
 */
export function digestEvidenceTexts<T extends EvidenceFields>(fields: T): Omit<T, 'prompt' | 'outputText'> & { textIssues: string[] } {
  const textIssues: string[] = [];
  const { prompt, outputText, ...rest } = fields;
  const digested = rest as T;
  for (const [text, hashKey, sampleKey, label] of [
    [prompt, 'promptSha256', 'promptSample', 'prompt'],
    [outputText, 'outputSha256', 'outputSample', 'outputText'],
  ] as const) {
    if (text === undefined) continue;
    const hash = sha256(text);
    if (digested[hashKey] !== undefined && digested[hashKey] !== hash) textIssues.push(`${label} does not hash to ${hashKey}`);
    digested[hashKey] ??= hash;
    digested[sampleKey] ??= textSample(text);
  }
  return { ...digested, textIssues };
}

/** A number at any of these keys of an object (the first found). */
function numberAt(source: Record<string, unknown>, keys: readonly string[]): number | undefined {
  for (const key of keys) {
    const value = source[key];
    if (typeof value === 'number' && Number.isFinite(value) && value > 0) return value;
  }
  return undefined;
}

/** The decode rate and the time to the first token the engine's own timings state, as far as this service reads them. */
export function engineTimingFigures(raw: EvidenceFields['engineTimingsRaw']): { decodeTokS?: number; firstTokenMs?: number } {
  if (Array.isArray(raw)) {
    // llama-bench JSON: one row per test; tg rows (n_prompt 0) give the decode rate.
    const decode = raw.find((row) => numberAt(row, ['n_gen']) !== undefined && !numberAt(row, ['n_prompt']));
    return { decodeTokS: decode ? numberAt(decode, ['avg_ts']) : undefined };
  }
  if (!raw) return {};
  const nested = raw.timings;
  const timings = nested && typeof nested === 'object' && !Array.isArray(nested) ? (nested as Record<string, unknown>) : raw;
  // llama.cpp server `timings`.
  const llamaDecode = numberAt(timings, ['predicted_per_second']);
  if (llamaDecode !== undefined) return { decodeTokS: llamaDecode, firstTokenMs: numberAt(timings, ['prompt_ms']) };
  // Ollama: eval_count tokens over eval_duration nanoseconds.
  const evalCount = numberAt(timings, ['eval_count']);
  const evalNs = numberAt(timings, ['eval_duration']);
  if (evalCount !== undefined && evalNs !== undefined) {
    const promptNs = numberAt(timings, ['prompt_eval_duration']);
    return { decodeTokS: evalCount / (evalNs / 1e9), firstTokenMs: promptNs === undefined ? undefined : promptNs / 1e6 };
  }
  // vLLM / SGLang benchmark JSON.
  return {
    decodeTokS: numberAt(timings, ['output_throughput', 'output_token_throughput']),
    firstTokenMs: numberAt(timings, ['median_ttft_ms', 'mean_ttft_ms']),
  };
}

export interface Verification {
  verified: boolean;
  issues: string[];
}

interface VerifiedFigures extends EvidenceFields {
  tokSOut?: number;
  ttftMs?: number;
  engineCommit?: string;
  engineBuild?: string;
}

/** How far `figure` is from `reference`, as a share of the reference. */
const relativeGap = (figure: number, reference: number) => Math.abs(figure - reference) / reference;
const percent = (share: number) => `${Math.round(share * 100)}%`;

/**
 * Whether the evidence is internally consistent: digests match samples where both are
 * given (a sample shorter than 4 KB is the whole text), the engine's own timings agree
 * with tokSOut and ttftMs within 5%, and the engine commit or build is named.
 */
export function verifyEvidence(run: VerifiedFigures, textIssues: readonly string[] = []): Verification {
  const issues = [...textIssues];
  for (const [hashKey, sampleKey] of [
    ['promptSha256', 'promptSample'],
    ['outputSha256', 'outputSample'],
  ] as const) {
    const hash = run[hashKey];
    const given = run[sampleKey];
    const whole = given !== undefined && Buffer.byteLength(given, 'utf8') < EVIDENCE_LIMITS.sampleBytes;
    if (hash !== undefined && whole && sha256(given) !== hash) issues.push(`${sampleKey} does not hash to ${hashKey}`);
  }
  if (run.promptSha256 === undefined && run.outputSha256 === undefined)
    issues.push('No promptSha256 or outputSha256: what was measured is not pinned');
  if (run.engineTimingsRaw === undefined) issues.push("No engineTimingsRaw: the engine's own timings cannot be compared");
  else {
    const { decodeTokS, firstTokenMs } = engineTimingFigures(run.engineTimingsRaw);
    if (decodeTokS === undefined) issues.push('engineTimingsRaw states no decode rate this service reads');
    else if (run.tokSOut !== undefined && relativeGap(decodeTokS, run.tokSOut) > EVIDENCE_LIMITS.timingTolerance)
      issues.push(
        `engineTimingsRaw gives ${decodeTokS.toFixed(1)} tok/s decode, ${percent(relativeGap(decodeTokS, run.tokSOut))} from tokSOut ${run.tokSOut}`,
      );
    if (firstTokenMs !== undefined && run.ttftMs !== undefined && relativeGap(firstTokenMs, run.ttftMs) > EVIDENCE_LIMITS.timingTolerance)
      issues.push(
        `engineTimingsRaw gives ${firstTokenMs.toFixed(1)} ms to the first token, ${percent(relativeGap(firstTokenMs, run.ttftMs))} from ttftMs ${run.ttftMs}`,
      );
  }
  if (!run.engineCommit && !run.engineBuild) issues.push('Neither engineCommit nor engineBuild names the engine build');
  return { verified: issues.length === 0, issues };
}

/** What a run's page says about its evidence: the digests, the engine's own figures beside the submitted ones, the samples. */
export interface EvidenceSummary {
  promptSha256: string | null;
  outputSha256: string | null;
  /** The engine's own decode rate and time to the first token, as `engineTimingFigures` reads them. */
  engineDecodeTokS: number | null;
  engineFirstTokenMs: number | null;
  /** Per-iteration results sent in `samples`. */
  sampleCount: number;
}

/** The evidence columns of a stored run, summarised for its page. */
export function evidenceSummary(row: {
  prompt_sha256: string | null;
  output_sha256: string | null;
  engine_timings_raw: EvidenceFields['engineTimingsRaw'] | null;
  samples: unknown[] | null;
}): EvidenceSummary {
  const { decodeTokS, firstTokenMs } = engineTimingFigures(row.engine_timings_raw ?? undefined);
  return {
    promptSha256: row.prompt_sha256,
    outputSha256: row.output_sha256,
    engineDecodeTokS: decodeTokS ?? null,
    engineFirstTokenMs: firstTokenMs ?? null,
    sampleCount: Array.isArray(row.samples) ? row.samples.length : 0,
  };
}
