import { z } from 'zod';
import { isCanonicalComponentName } from '../../lib/hardware-lookup.ts';
import { hardwareCostRules, hwClasses } from '../../constants.ts';
import type { RevisionProfile } from '../../revisions.ts';
import { documentedAsAbsent } from '../../schemas/json-schema.ts';
import { perRevision } from '../../schemas/query-params.ts';
import { evidenceFieldSchemas, specCounterFlagSchemas } from './evidence.ts';
import { POWER_SOURCES, SPEC_COUNTER_FLAGS } from '../../constants.ts';
import { expected } from '../../schemas/text-fields.ts';

/**
 * The speed-test submission, built per revision from its profile: bounds, engine list and
 * the fields a revision does not accept all come from the profile. The same schemas feed
 * validation, dry-run and (later) the OpenAPI document.
 */

/** Type errors say "Required" for a missing value, else what was expected. */
const text = (max: number, label = 'Value') =>
  z
    .string({ error: expected('Must be a string') })
    .trim()
    .min(1, `${label} must not be empty`)
    .max(max, `Must be at most ${max} characters`);
// Upper bounds far above any real machine keep derived totals (VRAM x cards, summed watts) finite.
const positive = (max = 1e9) =>
  z
    .number({ error: expected('Must be a number') })
    .finite('Must be a finite number')
    .positive('Must be positive')
    .max(max, `Must be at most ${max}`);
const nonNegative = (max = 1e9) =>
  z
    .number({ error: expected('Must be a number') })
    .finite('Must be a finite number')
    .min(0, 'Must be at least 0')
    .max(max, `Must be at most ${max}`);
const MEMORY_GB_MAX = 65_536;
const WATTS_MAX = 100_000;
const int = (min: number) =>
  z
    .number({ error: expected('Must be a number') })
    .int('Must be an integer')
    .min(min, `Must be at least ${min}`)
    .max(2_147_483_647, 'Too large');
const unit = () =>
  z
    .number({ error: expected('Must be a number') })
    .min(0, 'Must be between 0 and 1')
    .max(1, 'Must be between 0 and 1');

/** A field this revision does not accept: present at all is a field error naming the revision. */
export function notInRevision(revision: number) {
  // The OpenAPI document and the agent-context leave such a field out.
  return documentedAsAbsent(
    z
      .unknown()
      .superRefine((value, ctx) => {
        if (value !== undefined) ctx.addIssue({ code: 'custom', message: `Not accepted in API revision ${revision}` });
      })
      .optional(),
  ) as z.ZodType<undefined>;
}

/**
 * Every engine flag of the spec with its bound, before any gating: shared with saved setups,
 * which keep the same bounds and messages.
 */
export function engineFlagFieldSchemas(profile: RevisionProfile) {
  const { bounds } = profile.speedTests;
  return {
    commandSnippet: z
      .string({ error: expected('Must be a string') })
      .max(bounds.maxLength.commandSnippet, `Must be at most ${bounds.maxLength.commandSnippet} characters`),
    tensorParallel: int(1),
    pipelineParallel: int(1),
    gpuLayers: int(0),
    cpuLayers: int(0),
    cpuOffloadGb: nonNegative(),
    splitMode: text(64),
    gpuMemUtil: unit(),
    kvCacheDtype: text(64),
    kvCacheSizeMb: int(1),
    prefixCaching: z.boolean({ error: expected('Must be true or false') }),
    attentionBackend: text(64),
    flashAttn: z.boolean({ error: expected('Must be true or false') }),
    chunkedPrefill: z.boolean({ error: expected('Must be true or false') }),
    prefillChunkSize: int(1),
    contBatching: z.boolean({ error: expected('Must be true or false') }),
    maxRunningSeqs: int(1),
    schedulerDelayFactor: nonNegative(),
    ropeScaling: text(64),
    ropeScale: nonNegative(),
    yarnExtFactor: z.number({ error: expected('Must be a number') }).finite('Must be a finite number'),
    engineQuant: text(64),
    sglangQuant: text(64),
    concurrency: int(1),
    numParallel: int(1),
    specDecoding: z.boolean({ error: expected('Must be true or false') }),
    specMethod: text(64),
    specModel: text(256),
    specDraftModel: text(256),
    specNumTokens: int(1),
    specNgramSize: int(1),
    specDraftTp: int(1),
    specDraftWindowSize: int(1),
    mtpEnabled: z.boolean({ error: expected('Must be true or false') }),
    mtpDraftLayers: int(1),
    temperature: z
      .number({ error: 'Must be a number' })
      .min(bounds.temperature.min, `Must be between ${bounds.temperature.min} and ${bounds.temperature.max}`)
      .max(bounds.temperature.max, `Must be between ${bounds.temperature.min} and ${bounds.temperature.max}`),
    topP: unit(),
    topK: int(0),
    minP: unit(),
    repeatPenalty: nonNegative(),
    mirostat: z.union([z.literal(0), z.literal(1), z.literal(2)], { error: 'Must be 0, 1 or 2' }),
    extraFlags: z
      .string({ error: expected('Must be a string') })
      .max(bounds.maxLength.extraFlags, `Must be at most ${bounds.maxLength.extraFlags} characters`),
  };
}

/**
 * The warm-up before the timed requests, as the LocalMaxxing Go CLI reports it: a count of
 * untimed requests (remote endpoints) or a label (`llama-bench-default`, `disabled`).
 */
function warmupFlag() {
  return z.union([int(0).max(1000, 'Must be at most 1000'), z.string().trim().min(1).max(64)], {
    error: 'Must be a count of warm-up requests (0-1000) or a label of at most 64 characters',
  });
}

/** The engine flags of a submission: every one optional, `revision3` flags gated per revision. */
function engineFlagsShape(profile: RevisionProfile) {
  const gated = new Set<string>(profile.speedTests.engineFlagFieldsUnavailable);
  // The spec-decoding counters and the warm-up are facts of a measurement, not settings a saved setup keeps.
  const shape = { ...engineFlagFieldSchemas(profile), ...specCounterFlagSchemas(int, unit, () => nonNegative()), warmup: warmupFlag() };
  const entries = Object.entries(shape).map(([key, schema]) => [key, gated.has(key) ? notInRevision(profile.revision) : schema.optional()]);
  return Object.fromEntries(entries) as { [K in keyof typeof shape]: z.ZodOptional<(typeof shape)[K]> };
}

/**
 * Each hardware field with its bound, whatever the class: the union below and saved setups
 * (which check a field on its own until a class is chosen) share them.
 */
export function hardwareFieldSchemas(profile: RevisionProfile) {
  const name = (label: string) => text(128, label);
  const gpuSlot = z.strictObject({
    gpuName: name('gpuName'),
    count: int(1).max(64, 'Must be at most 64').default(1),
    vramGb: positive(MEMORY_GB_MAX),
  });
  return {
    gpuName: name('gpuName'),
    gpuCount: int(1).max(1024, 'Must be at most 1024'),
    vramGb: positive(MEMORY_GB_MAX),
    gpus: z
      .array(gpuSlot, { error: 'Must be an array' })
      .min(1, 'Give at least one GPU')
      .max(profile.speedTests.bounds.gpusMaxItems, `At most ${profile.speedTests.bounds.gpusMaxItems} entries`),
    chipVendor: text(64, 'chipVendor'),
    chipFamily: text(64, 'chipFamily'),
    chipVariant: text(64, 'chipVariant'),
    unifiedMemoryGb: positive(MEMORY_GB_MAX),
    npuTops: nonNegative(1e6),
    cpu: name('cpu'),
    ramGb: positive(MEMORY_GB_MAX),
    os: text(64),
    powerWatts: positive(WATTS_MAX),
  };
}

/** The submitted hardware: a union on `hwClass`, each class with its own required fields. */
export function hardwareSchema(profile: RevisionProfile) {
  const f = hardwareFieldSchemas(profile);
  const discrete = z
    .strictObject({
      hwClass: z.literal('DISCRETE_GPU'),
      gpuName: f.gpuName.optional(),
      gpuCount: f.gpuCount.optional(),
      vramGb: f.vramGb.optional(),
      gpus: f.gpus.optional(),
      cpu: f.cpu.optional(),
      ramGb: f.ramGb.optional(),
      os: f.os.optional(),
      powerWatts: f.powerWatts.optional(),
    })
    .superRefine((hw, ctx) => {
      if (hw.gpus) {
        for (const field of ['gpuName', 'vramGb'] as const) {
          if (hw[field] !== undefined)
            ctx.addIssue({ code: 'custom', path: [field], message: 'Give either gpuName and vramGb, or gpus, not both' });
        }
        return;
      }
      if (hw.gpuName === undefined) ctx.addIssue({ code: 'custom', path: ['gpuName'], message: 'Required unless gpus is given' });
      if (hw.vramGb === undefined) ctx.addIssue({ code: 'custom', path: ['vramGb'], message: 'Required unless gpus is given' });
    });
  const unified = z.strictObject({
    hwClass: z.literal('UNIFIED'),
    chipVendor: f.chipVendor,
    chipFamily: f.chipFamily,
    chipVariant: f.chipVariant,
    unifiedMemoryGb: f.unifiedMemoryGb,
    npuTops: f.npuTops.optional(),
    cpu: f.cpu.optional(),
    os: f.os.optional(),
    powerWatts: f.powerWatts.optional(),
  });
  const cpuOnly = z.strictObject({
    hwClass: z.literal('CPU_ONLY'),
    cpu: f.cpu,
    ramGb: f.ramGb,
    os: f.os.optional(),
  });
  return z.discriminatedUnion('hwClass', [discrete, unified, cpuOnly], {
    error: (issue) => {
      if (issue.input === undefined) return 'Required';
      return issue.code === 'invalid_union' ? `hwClass must be one of ${hwClasses.join(', ')}` : 'Must be an object';
    },
  });
}

/**
 * The file `lmx hardware --out hardware.json` (the LocalMaxxing Go CLI) writes, which its eval
 * commands send as it is: the cards both as `gpus` (each `name` or `gpuName`, `vramGb`) and as
 * flat `gpuName`/`vramGb`/`gpuCount` copies of them, plus `totalVramGb` (their sum) and
 * `cpuThreads`. The copies and the derived sum are dropped and `name` becomes `gpuName`;
 * anything that disagrees is left for the schema to report.
 */
export function fromHardwareFile(value: unknown): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  const hw = value as Record<string, unknown>;
  if (hw.hwClass !== 'DISCRETE_GPU' || !Array.isArray(hw.gpus) || hw.gpus.length === 0) return value;
  const slots = hw.gpus.map((slot) => {
    if (!slot || typeof slot !== 'object' || Array.isArray(slot)) return slot;
    const { name, ...rest } = slot as Record<string, unknown>;
    return rest.gpuName === undefined && typeof name === 'string' ? { ...rest, gpuName: name } : slot;
  }) as Record<string, unknown>[];
  const first = slots[0]!;
  const cards = slots.reduce((sum, slot) => sum + (typeof slot?.count === 'number' ? slot.count : 1), 0);
  const vram = slots.reduce((sum, slot) => sum + (typeof slot?.vramGb === 'number' ? slot.vramGb * ((slot.count as number) ?? 1) : NaN), 0);
  const copies =
    (hw.gpuName === undefined || hw.gpuName === first?.gpuName) &&
    (hw.vramGb === undefined || hw.vramGb === first?.vramGb) &&
    (hw.gpuCount === undefined || hw.gpuCount === cards);
  if (!copies) return { ...hw, gpus: slots };
  const { gpuName: _name, vramGb: _vram, gpuCount: _count, totalVramGb, cpuThreads, ...rest } = hw;
  return {
    ...rest,
    gpus: slots,
    ...(totalVramGb === undefined || Math.abs((totalVramGb as number) - vram) < 0.1 ? {} : { totalVramGb }),
    ...(cpuThreads === undefined || (Number.isInteger(cpuThreads) && (cpuThreads as number) > 0) ? {} : { cpuThreads }),
  };
}

/** The hardware of a quality run or an execution: the submitted hardware, or the `lmx hardware` file. */
export function hardwareOrFileSchema(profile: RevisionProfile) {
  return z.preprocess(fromHardwareFile, hardwareSchema(profile));
}

function hardwareCostItem() {
  const thisYear = () => new Date().getUTCFullYear();
  return z.strictObject({
    // A name from the hardware catalogue, so costs add up per component across runs.
    component: text(128, 'component').refine(
      isCanonicalComponentName,
      'Must be a canonical hardware name from the catalogue (hardwareCostComponentNames)',
    ),
    condition: z.enum(hardwareCostRules.conditions, { error: `Must be one of ${hardwareCostRules.conditions.join(', ')}` }),
    yearPurchased: int(hardwareCostRules.yearPurchasedMin).refine((year) => year <= thisYear(), 'Must not be in the future'),
    price: positive(),
    currency: z.enum(hardwareCostRules.currencies, { error: 'Must be an upper-case ISO 4217 code from the accepted list' }),
  });
}

/** The engine and run-shape fields a submission shares with saved setups (same bounds and enums). */
export function engineFieldSchemas(profile: RevisionProfile) {
  const { bounds } = profile.speedTests;
  return {
    engineName: z.enum(profile.speedTests.engines as [string, ...string[]], {
      error: expected(`Must be one of: ${profile.speedTests.engines.join(', ')}`),
    }),
    engineVersion: text(bounds.maxLength.engineVersion, 'engineVersion'),
    backend: text(bounds.maxLength.backend, 'backend'),
    quantization: text(bounds.maxLength.quantization, 'quantization'),
    contextLength: int(1),
    batchSize: int(1),
  };
}

/** A model id as runs name it (`<org>/<model>`), trimmed, within the revision's bound. */
export function hfIdSchema(profile: RevisionProfile) {
  const max = profile.speedTests.bounds.maxLength.hfId;
  return z
    .string({ error: expected('Must be a string') })
    .trim()
    .min(1, 'Required')
    .max(max, `Must be at most ${max} characters`)
    .regex(/^[^/\s]+\/[^/\s]+$/, 'Must be a model id of the form <org>/<model>');
}

/**
 * The spec's defaults of the submission fields a submitter may leave out. The schema keeps
 * them absent and documents the default; normalisation fills it in and records the field
 * as defaulted (DECISIONS.md "Speed-test ranking": stated vs defaulted).
 */
export const SUBMISSION_DEFAULTS = {
  modelRevision: 'main',
  promptTokens: 0,
  outputTokens: 0,
  contextLength: 2048,
  batchSize: 1,
  prefillTokens: 0,
} as const;
export type DefaultableField = keyof typeof SUBMISSION_DEFAULTS;
const DEFAULTABLE_FIELDS = Object.keys(SUBMISSION_DEFAULTS) as DefaultableField[];

/** The fields of SUBMISSION_DEFAULTS a revision takes (revision 1 has no prefillTokens). */
export function defaultableFields(profile: RevisionProfile): DefaultableField[] {
  const notTaken = new Set<string>(profile.speedTests.revisionOnlyFields);
  return DEFAULTABLE_FIELDS.filter((field) => !notTaken.has(field));
}

/** Optional, with the spec's default documented (the OpenAPI `default`), but not applied here. */
const specDefault = <S extends z.ZodType>(schema: S, field: DefaultableField) =>
  schema.optional().meta({ default: SUBMISSION_DEFAULTS[field] });

function buildSubmissionSchema(profile: RevisionProfile) {
  const engine = engineFieldSchemas(profile);
  const evidence = evidenceFieldSchemas();
  const { bounds } = profile.speedTests;
  const { revision } = profile;
  const gated = new Set<string>(profile.speedTests.revisionOnlyFields);
  const gate = <S extends z.ZodType>(field: string, schema: S) => (gated.has(field) ? notInRevision(revision) : schema);

  const engineFlags = z.strictObject(engineFlagsShape(profile)).superRefine((flags, ctx) => {
    if (profile.speedTests.commandSnippetRequiredWithFlags && givesSettings(flags) && !flags.commandSnippet?.trim()) {
      ctx.addIssue({ code: 'custom', path: ['commandSnippet'], message: 'Required when engineFlags is given' });
    }
  });

  return z.strictObject({
    hfId: hfIdSchema(profile),
    hardware: hardwareSchema(profile),
    engineName: engine.engineName,
    quantization: engine.quantization,
    tokSOut: positive().optional(),
    tokSPrefill: gate('tokSPrefill', positive().optional()),
    tokSTotal: positive().optional(),
    ttftMs: positive().optional(),
    peakVramGb: positive(MEMORY_GB_MAX).optional(),
    modelRevision: specDefault(text(bounds.maxLength.modelRevision, 'modelRevision'), 'modelRevision'),
    engineVersion: engine.engineVersion.optional(),
    engineRepository: gate(
      'engineRepository',
      z
        .url({ protocol: /^https?$/, error: 'Must be an http(s) URL' })
        .max(bounds.maxLength.engineRepository, `Must be at most ${bounds.maxLength.engineRepository} characters`)
        .optional(),
    ),
    engineBuild: gate('engineBuild', text(bounds.maxLength.engineBuild, 'engineBuild').optional()),
    engineCommit: gate(
      'engineCommit',
      z
        .string({ error: 'Must be a string' })
        .regex(
          new RegExp(`^[0-9a-fA-F]{${bounds.engineCommitLength.min},${bounds.engineCommitLength.max}}$`),
          `Must be ${bounds.engineCommitLength.min}-${bounds.engineCommitLength.max} hex characters`,
        )
        .transform((commit) => commit.toLowerCase())
        .optional(),
    ),
    backend: engine.backend.optional(),
    promptTokens: specDefault(int(0), 'promptTokens'),
    outputTokens: specDefault(int(0), 'outputTokens'),
    contextLength: specDefault(engine.contextLength, 'contextLength'),
    batchSize: specDefault(engine.batchSize, 'batchSize'),
    prefillTokens: gate('prefillTokens', specDefault(int(0), 'prefillTokens')),
    gpuPowerWatts: gate(
      'gpuPowerWatts',
      z
        .array(positive(WATTS_MAX), { error: 'Must be an array of numbers' })
        .min(1, 'Give one entry per GPU')
        .max(64, 'At most 64 entries')
        .optional(),
    ),
    powerSource: gate(
      'powerSource',
      z
        .enum(POWER_SOURCES, { error: `Must be one of ${POWER_SOURCES.join(', ')}` })
        .optional()
        .meta({
          description:
            'Where gpuPowerWatts came from: `measured` (sampled by the measuring client during the timed window, as llm-bench does) or `stated` (typed; the default whenever gpuPowerWatts is given without it). The stored run carries the source of the power behind tokPerWatt.',
        }),
    ),
    hardwareCost: gate('hardwareCost', z.array(hardwareCostItem(), { error: 'Must be an array' }).max(32, 'At most 32 entries').optional()),
    notes: z
      .string({ error: expected('Must be a string') })
      .trim()
      .max(bounds.maxLength.notes, `Must be at most ${bounds.maxLength.notes} characters`)
      .optional(),
    engineFlags: engineFlags.optional(),
    prompt: gate('prompt', evidence.prompt),
    outputText: gate('outputText', evidence.outputText),
    promptSha256: gate('promptSha256', evidence.promptSha256),
    promptSample: gate('promptSample', evidence.promptSample),
    outputSha256: gate('outputSha256', evidence.outputSha256),
    outputSample: gate('outputSample', evidence.outputSample),
    engineTimingsRaw: gate('engineTimingsRaw', evidence.engineTimingsRaw),
    samples: gate('samples', evidence.samples),
    sampleStats: gate('sampleStats', evidence.sampleStats),
    replicates: gate(
      'replicates',
      z.uuid({ error: 'Must be a run id (uuid)' }).optional().meta({
        description:
          "The id of an approved run this one measures again with the same recipe (`recipe` of that run; `llm-bench reproduce <run id>` sends it). It counts among that run's `replications` when the recipe and the device match and another user measured it; otherwise it is stored and `replicates.reason` says why it does not count.",
      }),
    ),
  });
}

/**
 * Whether engine flags state any setting: an empty object (what clients send when they
 * know no flag) and the measured spec-decoding counters alone are no launch configuration,
 * so they need no `commandSnippet` (DECISIONS.md "Real clients").
 */
export function givesSettings(flags: object): boolean {
  const counters = new Set<string>(SPEC_COUNTER_FLAGS);
  return Object.entries(flags).some(([key, value]) => value !== undefined && !counters.has(key));
}

/** The submission schema of a revision (built once). */
export const speedTestSubmissionSchema = perRevision(buildSubmissionSchema);

/**
 * An owner's correction of a stored run (PATCH): any subset of the submission's fields.
 * Each field given replaces the stored one (`hardware` and `engineFlags` as a whole);
 * `null` drops a field (a defaulted one goes back to its default; a required one is then
 * reported missing). The merged whole is then checked exactly as a submission.
 */
function buildCorrectionSchema(profile: RevisionProfile) {
  const gated = new Set<string>(profile.speedTests.revisionOnlyFields);
  const fields = Object.entries(speedTestSubmissionSchema(profile).shape).map(([field, schema]: [string, z.ZodType]) => [
    field,
    gated.has(field) ? schema : schema.nullable().optional(),
  ]);
  return z.strictObject(Object.fromEntries(fields) as Record<string, z.ZodType>).meta({
    description:
      'Any subset of the submission fields. Each field given replaces the stored one (hardware and engineFlags as a whole); null drops a field (a defaulted one goes back to its default, a required one is reported missing). The merged run is validated and normalised exactly as a submission.',
  });
}

export const speedTestCorrectionSchema = perRevision(buildCorrectionSchema);

/**
 * The flat form of a correction (PATCH /api/runs/{id}, as the LocalMaxxing Go CLI's
 * `speed-test submissions edit` sends it): the correction's fields and each engine flag side
 * by side. A flag given changes that flag alone (`null` drops it); the others stay.
 */
function buildFlatCorrectionSchema(profile: RevisionProfile) {
  const { engineFlags: _whole, ...fields } = speedTestCorrectionSchema(profile).shape as Record<string, z.ZodType>;
  const gated = new Set<string>(profile.speedTests.engineFlagFieldsUnavailable);
  const flagNames = Object.keys(engineFlagsSchema(profile).shape);
  const flags = Object.entries(engineFlagsSchema(profile).shape).map(([flag, schema]: [string, z.ZodType]) => [
    flag,
    gated.has(flag) ? schema : (schema as z.ZodOptional<z.ZodType>).unwrap().nullable().optional(),
  ]);
  return z
    .strictObject({ ...fields, ...Object.fromEntries(flags) } as Record<string, z.ZodType>)
    .meta({
      description:
        'Any subset of the correction fields (hardware as a whole) and of the engine flags, flat: each flag given replaces that flag alone, null drops it, the other stored flags stay. The merged run is validated exactly as a submission.',
    })
    .transform((body) => {
      const correction: Record<string, unknown> = {};
      const engineFlagChanges: Record<string, unknown> = {};
      for (const [field, value] of Object.entries(body)) (flagNames.includes(field) ? engineFlagChanges : correction)[field] = value;
      return { correction, engineFlagChanges };
    });
}

export const speedTestFlatCorrectionSchema = perRevision(buildFlatCorrectionSchema);

/** Engine flags alone, to re-check the merge of explicit and parsed flags against the bounds. */
export function engineFlagsSchema(profile: RevisionProfile) {
  return speedTestSubmissionSchema(profile).shape.engineFlags.unwrap();
}

export type SpeedTestSubmission = z.output<ReturnType<typeof buildSubmissionSchema>>;
export type SubmittedHardware = SpeedTestSubmission['hardware'];
export type SubmittedEngineFlags = NonNullable<SpeedTestSubmission['engineFlags']>;
