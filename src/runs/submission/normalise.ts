import { HttpError, ValidationFailed } from '../../lib/errors.ts';
import { parseOrThrow } from '../../lib/validation.ts';
import { parseCommandSnippet, type CommandStatedFields } from '../../lib/command-snippet.ts';
import { digestEvidenceTexts, verifyEvidence } from './evidence.ts';
import { isVramTotalOfCards } from '../../lib/hardware-lookup.ts';
import type { MetricRule, RevisionProfile } from '../../revisions.ts';
import type { PowerSource } from '../../constants.ts';
import {
  defaultableFields,
  engineFlagsSchema,
  speedTestSubmissionSchema,
  SUBMISSION_DEFAULTS,
  type DefaultableField,
  type SpeedTestSubmission,
  type SubmittedEngineFlags,
  type SubmittedHardware,
} from './speed-test.schema.ts';

/** The hardware profile as stored and returned: the submitted union plus derived fields. */
export type NormalisedHardware =
  | {
      hwClass: 'DISCRETE_GPU';
      gpuName: string;
      gpuCount: number;
      /** Per card for a homogeneous setup; the total across slots when heterogeneous. */
      vramGb: number;
      /** Set when the submitted `vramGb` was the total over the cards and was divided by the count (`isVramTotalOfCards`). */
      vramGbReadAsTotal?: true;
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

/** Top-level fields a command may fill at the API (hfId and engineName are required there, so only forms take them from it). */
const COMMAND_FILLED_FIELDS = ['contextLength', 'promptTokens', 'outputTokens', 'prefillTokens'] as const;
export type CommandFilledField = (typeof COMMAND_FILLED_FIELDS)[number];

/** The normalised payload: what a dry-run returns as `parsed` and a submission stores. */
export type NormalisedSpeedTest = Omit<
  SpeedTestSubmission,
  'hardware' | 'engineFlags' | 'prompt' | 'outputText' | 'powerSource' | DefaultableField
> & {
  hardware: NormalisedHardware;
  engineFlags?: EngineFlags;
  totalPowerWatts?: number;
  /** Where the power behind tok/W came from (powerOf); null when the run gives no power. */
  powerSource: PowerSource | null;
  modelRevision: string;
  promptTokens: number;
  outputTokens: number;
  contextLength: number;
  batchSize: number;
  /** Absent in revisions that do not take it. */
  prefillTokens?: number;
  /** The fields the submitter did not state, filled with the spec's defaults (in SUBMISSION_DEFAULTS order). */
  defaultedFields: DefaultableField[];
  /** What the launch command told us: flags mapped to fields, flags we did not know, top-level fields it filled. */
  commandSnippetFlags?: { recognised: string[]; unrecognised: string[]; filledFields: CommandFilledField[] };
  /** Whether the run's evidence is internally consistent (src/runs/submission/evidence.ts), and what is not. */
  verifiedRun: boolean;
  verificationIssues: string[];
};

const MULTI_GPU = 'Multi-GPU';

export function normaliseHardware(hardware: SubmittedHardware): NormalisedHardware {
  if (hardware.hwClass !== 'DISCRETE_GPU') return hardware;
  const { gpus, gpuName, gpuCount, vramGb, ...rest } = hardware;
  if (!gpus) {
    const count = gpuCount ?? 1;
    if (isVramTotalOfCards(gpuName!, count, vramGb!)) {
      const perCard = round(vramGb! / count);
      return {
        ...rest,
        gpuName: gpuName!,
        gpuCount: count,
        vramGb: perCard,
        totalVramGb: round(vramGb!),
        isHeterogeneousGpu: false,
        vramGbReadAsTotal: true,
      };
    }
    return { ...rest, gpuName: gpuName!, gpuCount: count, vramGb: vramGb!, totalVramGb: round(vramGb! * count), isHeterogeneousGpu: false };
  }
  const totalCards = gpus.reduce((sum, slot) => sum + slot.count, 0);
  const totalVram = round(gpus.reduce((sum, slot) => sum + slot.count * slot.vramGb, 0));
  const homogeneous = gpus.every((slot) => slot.gpuName === gpus[0]!.gpuName && slot.vramGb === gpus[0]!.vramGb);
  if (homogeneous) {
    // One kind of card in several slots is the flat form.
    return {
      ...rest,
      gpuName: gpus[0]!.gpuName,
      gpuCount: totalCards,
      vramGb: gpus[0]!.vramGb,
      totalVramGb: totalVram,
      isHeterogeneousGpu: false,
    };
  }
  return { ...rest, gpuName: MULTI_GPU, gpuCount: totalCards, vramGb: totalVram, totalVramGb: totalVram, isHeterogeneousGpu: true, gpus };
}

/** A stored (normalised) hardware profile in the form a submission gives it: normaliseHardware's inverse. */
export function submittedHardware(hardware: NormalisedHardware): SubmittedHardware {
  if (hardware.hwClass !== 'DISCRETE_GPU') return hardware;
  const { totalVramGb, isHeterogeneousGpu, gpus, gpuName, gpuCount, vramGb, vramGbReadAsTotal, ...rest } = hardware;
  if (isHeterogeneousGpu && gpus) return { ...rest, gpus };
  return { ...rest, gpuName, gpuCount, vramGb: vramGbReadAsTotal ? totalVramGb : vramGb };
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
  if (resolved.specDecoding === undefined && SPECULATIVE_FIELDS.some((field) => resolved[field] !== undefined))
    resolved.specDecoding = true;
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
): { flags: EngineFlags; fields: CommandStatedFields; recognised: string[]; unrecognised: string[] } {
  const parse = explicit.commandSnippet
    ? parseCommandSnippet(explicit.commandSnippet, engineName)
    : { flags: {}, fields: {}, recognised: [], unrecognised: [] };
  const defined = (o: object) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
  const merged = resolveFlagAliases({ ...defined(parse.flags), ...defined(explicit) });
  // Values read from the command meet the same bounds as typed ones.
  const flags = parseOrThrow(engineFlagsSchema(profile), merged, 'engineFlags') as EngineFlags;
  return { flags, fields: parse.fields, recognised: parse.recognised, unrecognised: parse.unrecognised };
}

/**
 * The top-level fields the command states and the submitter did not give, written into
 * `normalised`; a value that breaks the field's bound is a 400 on the command. Returns the
 * fields filled.
 */
function fillFromCommand(profile: RevisionProfile, normalised: Record<string, unknown>, stated: CommandStatedFields): CommandFilledField[] {
  const shape = speedTestSubmissionSchema(profile).shape;
  const taken = new Set<string>(defaultableFields(profile));
  const filled: CommandFilledField[] = [];
  for (const field of COMMAND_FILLED_FIELDS) {
    const value = stated[field];
    if (value === undefined || normalised[field] !== undefined || !taken.has(field)) continue;
    const checked = shape[field].safeParse(value);
    if (!checked.success) {
      const messages = checked.error.issues.map((issue) => `${field} read from the command: ${issue.message}`);
      throw new ValidationFailed({ fieldErrors: { 'engineFlags.commandSnippet': messages }, formErrors: [] });
    }
    normalised[field] = value;
    filled.push(field);
  }
  return filled;
}

/**
 * Every field the submitter left out (and the command did not state) gets the spec's
 * default, and is named in the returned list: pages show "not stated" for them.
 */
function applySpecDefaults(profile: RevisionProfile, normalised: Record<string, unknown>): DefaultableField[] {
  const defaulted: DefaultableField[] = [];
  for (const field of defaultableFields(profile)) {
    if (normalised[field] !== undefined) continue;
    normalised[field] = SUBMISSION_DEFAULTS[field];
    defaulted.push(field);
  }
  return defaulted;
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

/**
 * Where the run's power figure (the one tok/W divides by: the summed gpuPowerWatts, else the
 * hardware's powerWatts) came from: `measured` only as the submitter says so of
 * gpuPowerWatts, `stated` for any other power given, null without power. A source with no
 * power to describe is a 400.
 */
export function powerSourceOf(submission: Pick<SpeedTestSubmission, 'gpuPowerWatts' | 'powerSource' | 'hardware'>): PowerSource | null {
  const { gpuPowerWatts, powerSource } = submission;
  if (gpuPowerWatts) return powerSource ?? 'stated';
  const machinePower = 'powerWatts' in submission.hardware ? submission.hardware.powerWatts : undefined;
  if (powerSource === 'measured' || (powerSource && machinePower === undefined)) {
    const message =
      powerSource === 'measured'
        ? 'measured describes gpuPowerWatts sampled during the run: give gpuPowerWatts with it'
        : "Describes the run's power: give gpuPowerWatts (or hardware.powerWatts) with it";
    throw new ValidationFailed({ fieldErrors: { powerSource: [message] }, formErrors: [] });
  }
  return machinePower === undefined ? null : 'stated';
}

/**
 * The dry-run's view of a normalised submission: `parsed` without the evidence verdict, which
 * revision 3 answers on its own as `verification` (the stored run carries it as `verifiedRun`
 * and `verificationIssues`).
 */
export function dryRunParts(profile: RevisionProfile, normalised: NormalisedSpeedTest) {
  const { verifiedRun, verificationIssues, powerSource, ...parsed } = normalised;
  return {
    parsed: profile.speedTests.revisionOnlyFields.includes('powerSource') ? parsed : { ...parsed, powerSource },
    verification: profile.speedTests.revision3Fields ? { verification: { verified: verifiedRun, issues: verificationIssues } } : {},
  };
}

/** Validates a submission body for a revision and returns its normalised form (no I/O). */
export function normaliseSubmission(profile: RevisionProfile, body: unknown): NormalisedSpeedTest {
  return normaliseParsedSubmission(profile, parseOrThrow(speedTestSubmissionSchema(profile), body));
}

/**
 * A submission that passed the schema, normalised: the metric rule (a 422 or 400), the
 * hardware's derived fields, the launch command's flags merged under the explicit ones
 * (400 when a parsed value breaks a bound), the top-level fields the command states where
 * none were given, the spec's defaults for the rest (listed in `defaultedFields`), summed
 * power and the engine's canonical repository. Submissions, dry-runs, the demo seed and
 * corrections all pass here, so what was stated is decided in this one place.
 */
export function normaliseParsedSubmission(profile: RevisionProfile, submission: SpeedTestSubmission): NormalisedSpeedTest {
  checkMetricRule(profile.speedTests.metricRule, submission);
  const { hardware, engineFlags, ...given } = submission;
  // The whole prompt and output are kept only as their digest and sample.
  const { textIssues, ...rest } = digestEvidenceTexts(given);
  const normalised = { ...rest, hardware: normaliseHardware(hardware) } as NormalisedSpeedTest;
  // `engineFlags: {}` is what clients send when they know no flag: not supplied.
  if (engineFlags && Object.values(engineFlags).some((value) => value !== undefined)) {
    const merged = mergeEngineFlags(profile, submission.engineName, engineFlags);
    normalised.engineFlags = merged.flags;
    const filledFields = fillFromCommand(profile, normalised, merged.fields);
    normalised.commandSnippetFlags = { recognised: merged.recognised, unrecognised: merged.unrecognised, filledFields };
  }
  normalised.defaultedFields = applySpecDefaults(profile, normalised);
  if (submission.gpuPowerWatts) normalised.totalPowerWatts = round(submission.gpuPowerWatts.reduce((a, b) => a + b, 0));
  normalised.powerSource = powerSourceOf(submission);
  const canonicalRepository =
    profile.speedTests.canonicalEngineRepositories[submission.engineName as keyof typeof profile.speedTests.canonicalEngineRepositories];
  if (!normalised.engineRepository && canonicalRepository) normalised.engineRepository = canonicalRepository;
  const verification = verifyEvidence(normalised, textIssues);
  normalised.verifiedRun = verification.verified;
  normalised.verificationIssues = verification.issues;
  return normalised;
}
