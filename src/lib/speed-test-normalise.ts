import { HttpError, ValidationFailed } from './errors.ts';
import { parseOrThrow } from './validation.ts';
import { parseCommandSnippet } from './command-snippet.ts';
import type { MetricRule, RevisionProfile } from '../revisions.ts';
import {
  engineFlagsSchema,
  speedTestSubmissionSchema,
  type SpeedTestSubmission,
  type SubmittedEngineFlags,
  type SubmittedHardware,
} from '../schemas/speed-test.schema.ts';

/** The hardware profile as stored and returned: the submitted union plus derived fields. */
export type NormalisedHardware =
  | {
      hwClass: 'DISCRETE_GPU';
      gpuName: string;
      gpuCount: number;
      /** Per card for a homogeneous setup; the total across slots when heterogeneous. */
      vramGb: number;
      totalVramGb: number;
      isHeterogeneousGpu: boolean;
      gpus?: { gpuName: string; count: number; vramGb: number }[];
      cpu?: string;
      ramGb?: number;
      os?: string;
      powerWatts?: number;
    }
  | Extract<SubmittedHardware, { hwClass: 'UNIFIED' }>
  | Extract<SubmittedHardware, { hwClass: 'CPU_ONLY' }>;

export type EngineFlags = Omit<SubmittedEngineFlags, 'numParallel' | 'specDraftModel'>;

/** The normalised payload: what a dry-run returns as `parsed` and a submission stores. */
export type NormalisedSpeedTest = Omit<SpeedTestSubmission, 'hardware' | 'engineFlags'> & {
  hardware: NormalisedHardware;
  engineFlags?: EngineFlags;
  totalPowerWatts?: number;
  /** What the launch command told us: flags mapped to fields, and flags we did not know. */
  commandSnippetFlags?: { recognised: string[]; unrecognised: string[] };
};

const MULTI_GPU = 'Multi-GPU';

export function normaliseHardware(hardware: SubmittedHardware): NormalisedHardware {
  if (hardware.hwClass !== 'DISCRETE_GPU') return hardware;
  const { gpus, gpuName, gpuCount, vramGb, ...rest } = hardware;
  if (!gpus) {
    const count = gpuCount ?? 1;
    return { ...rest, gpuName: gpuName!, gpuCount: count, vramGb: vramGb!, totalVramGb: round(vramGb! * count), isHeterogeneousGpu: false };
  }
  const totalCards = gpus.reduce((sum, slot) => sum + slot.count, 0);
  const totalVram = round(gpus.reduce((sum, slot) => sum + slot.count * slot.vramGb, 0));
  const homogeneous = gpus.every((slot) => slot.gpuName === gpus[0]!.gpuName && slot.vramGb === gpus[0]!.vramGb);
  if (homogeneous) {
    // One kind of card in several slots is the flat form.
    return { ...rest, gpuName: gpus[0]!.gpuName, gpuCount: totalCards, vramGb: gpus[0]!.vramGb, totalVramGb: totalVram, isHeterogeneousGpu: false };
  }
  return { ...rest, gpuName: MULTI_GPU, gpuCount: totalCards, vramGb: totalVram, totalVramGb: totalVram, isHeterogeneousGpu: true, gpus };
}

/** A stored (normalised) hardware profile in the form a submission gives it: normaliseHardware's inverse. */
export function submittedHardware(hardware: NormalisedHardware): SubmittedHardware {
  if (hardware.hwClass !== 'DISCRETE_GPU') return hardware;
  const { totalVramGb: _total, isHeterogeneousGpu, gpus, gpuName, gpuCount, vramGb, ...rest } = hardware;
  return isHeterogeneousGpu && gpus ? { ...rest, gpus } : { ...rest, gpuName, gpuCount, vramGb };
}

const SPECULATIVE_FIELDS = ['specMethod', 'specModel', 'specNumTokens', 'specNgramSize', 'specDraftTp', 'specDraftWindowSize'] as const;

/**
 * One name per setting: `numParallel` feeds `concurrency` only when that is absent,
 * `specDraftModel` is `specModel`, any speculative field implies `specDecoding`, MTP
 * layers imply MTP.
 */
export function resolveFlagAliases(flags: object): Record<string, unknown> {
  const resolved: Record<string, unknown> = { ...flags };
  if (resolved.concurrency === undefined && resolved.numParallel !== undefined) resolved.concurrency = resolved.numParallel;
  delete resolved.numParallel;
  if (resolved.specModel === undefined && resolved.specDraftModel !== undefined) resolved.specModel = resolved.specDraftModel;
  delete resolved.specDraftModel;
  // Implied only when not stated: an explicit `false` is the submitter's word.
  if (resolved.specDecoding === undefined && SPECULATIVE_FIELDS.some((field) => resolved[field] !== undefined)) resolved.specDecoding = true;
  if (resolved.mtpEnabled === undefined && resolved.mtpDraftLayers !== undefined) resolved.mtpEnabled = true;
  return resolved;
}

/**
 * Explicit flags over those parsed from the launch command, aliases resolved, and the
 * result checked against the flag bounds (errors under `engineFlags.*`).
 */
export function mergeEngineFlags(
  profile: RevisionProfile,
  engineName: string,
  explicit: SubmittedEngineFlags,
): { flags: EngineFlags; recognised: string[]; unrecognised: string[] } {
  const parse = explicit.commandSnippet ? parseCommandSnippet(explicit.commandSnippet, engineName) : { flags: {}, recognised: [], unrecognised: [] };
  const defined = (o: object) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
  const merged = resolveFlagAliases({ ...defined(parse.flags), ...defined(explicit) });
  // Values read from the command meet the same bounds as typed ones.
  const flags = parseOrThrow(engineFlagsSchema(profile), merged, 'engineFlags') as EngineFlags;
  return { flags, recognised: parse.recognised, unrecognised: parse.unrecognised };
}

/** The revision's metric rule: a missing required metric is a 400, a failed any-of a 422 with the spec's text. */
export function checkMetricRule(rule: MetricRule, submission: Partial<Record<string, unknown>>): void {
  const given = (field: string) => submission[field] !== undefined;
  if ('required' in rule && !given(rule.required)) {
    throw new ValidationFailed({ fieldErrors: { [rule.required]: ['Required'] }, formErrors: [] });
  }
  if (rule.kind === 'anyOf' && !rule.fields.some(given)) throw new HttpError(rule.status, rule.message);
  if (rule.kind === 'requiredPlusOneOf' && !rule.oneOf.some(given)) throw new HttpError(rule.status, rule.message);
}

const round = (n: number) => Math.round(n * 1000) / 1000;

/** Validates a submission body for a revision and returns its normalised form (no I/O). */
export function normaliseSubmission(profile: RevisionProfile, body: unknown): NormalisedSpeedTest {
  return normaliseParsedSubmission(profile, parseOrThrow(speedTestSubmissionSchema(profile), body));
}

/**
 * A submission that passed the schema, normalised: the metric rule (a 422 or 400), the
 * hardware's derived fields, the launch command's flags merged under the explicit ones
 * (400 when a parsed value breaks a bound), summed power and the engine's canonical repository.
 */
export function normaliseParsedSubmission(profile: RevisionProfile, submission: SpeedTestSubmission): NormalisedSpeedTest {
  checkMetricRule(profile.speedTests.metricRule, submission);
  const { hardware, engineFlags, ...rest } = submission;
  const normalised: NormalisedSpeedTest = { ...rest, hardware: normaliseHardware(hardware) };
  if (engineFlags) {
    const merged = mergeEngineFlags(profile, submission.engineName, engineFlags);
    normalised.engineFlags = merged.flags;
    normalised.commandSnippetFlags = { recognised: merged.recognised, unrecognised: merged.unrecognised };
  }
  if (submission.gpuPowerWatts) normalised.totalPowerWatts = round(submission.gpuPowerWatts.reduce((a, b) => a + b, 0));
  const canonicalRepository = profile.speedTests.canonicalEngineRepositories[submission.engineName as keyof typeof profile.speedTests.canonicalEngineRepositories];
  if (!normalised.engineRepository && canonicalRepository) normalised.engineRepository = canonicalRepository;
  return normalised;
}
