import { z } from 'zod';
import { hwClasses, SETUPS_PER_ACCOUNT, type HwClass } from '../constants.ts';
import type { RevisionProfile } from '../revisions.ts';
import { perRevision, wholeNumber } from './query-params.ts';
import {
  engineFieldSchemas,
  engineFlagFieldSchemas,
  hardwareFieldSchemas,
  hardwareSchema,
  notInRevision,
} from '../runs/submission/speed-test.schema.ts';

/**
 * A saved setup: a named, possibly partial hardware/engine configuration. Every field of
 * the configuration reuses the submission's piece (same bounds, enums and messages) and is
 * flattened: `gpuName`, `engineName`, `gpuLayers` sit side by side. Built per revision,
 * like the submission, so a revision's bounds and gated flags apply here too.
 */

export const SETUP_NAME_MAX = 100;
export const SETUP_DESCRIPTION_MAX = 2000;

/** The hardware fields, as flat setup fields; `hwClass` picks which of the others apply. */
export const setupHardwareFields = [
  'hwClass',
  'gpuName',
  'gpuCount',
  'vramGb',
  'gpus',
  'chipVendor',
  'chipFamily',
  'chipVariant',
  'unifiedMemoryGb',
  'npuTops',
  'cpu',
  'ramGb',
  'os',
  'powerWatts',
] as const;

const typeError = (what: string) => (issue: { input?: unknown }) => (issue.input === undefined ? 'Required' : what);

/** Every configuration field of a setup with its schema (before gating). */
function configFieldSchemas(profile: RevisionProfile) {
  return {
    hwClass: z.enum(hwClasses, { error: typeError(`Must be one of ${hwClasses.join(', ')}`) }),
    ...hardwareFieldSchemas(profile),
    ...engineFieldSchemas(profile),
    ...engineFlagFieldSchemas(profile),
  };
}

export type SetupConfigField = keyof ReturnType<typeof configFieldSchemas>;

function buildSetupSchemas(profile: RevisionProfile) {
  const fields = configFieldSchemas(profile);
  const gated = new Set<string>(profile.speedTests.engineFlagFieldsUnavailable);
  // A field this revision lacks is an error when given at all (even as null); the others may be null, which clears them.
  const config = Object.fromEntries(
    Object.entries(fields).map(([key, schema]) => [key, gated.has(key) ? notInRevision(profile.revision) : schema.nullable().optional()]),
  ) as { [K in SetupConfigField]: z.ZodOptional<z.ZodNullable<(typeof fields)[K]>> };

  const name = z
    .string({ error: typeError('Must be a string') })
    .trim()
    .min(1, 'Name is required')
    .max(SETUP_NAME_MAX, `Name must be at most ${SETUP_NAME_MAX} characters`)
    .regex(/^[^\u0000-\u001f\u007f]*$/, 'Name must not contain control characters');
  const description = z
    .string({ error: typeError('Must be a string') })
    .trim()
    .max(SETUP_DESCRIPTION_MAX, `Must be at most ${SETUP_DESCRIPTION_MAX} characters`)
    // An empty description is no description.
    .transform((text) => (text === '' ? null : text))
    .nullable()
    .optional();
  const isDefault = z.boolean({ error: typeError('Must be true or false') });

  const create = z.strictObject({ name, description, isDefault: isDefault.optional(), ...config });
  // The same fields, every one optional: only those given change; `null` clears a nullable one.
  const patch = z.strictObject({ name: name.optional(), description, isDefault: isDefault.optional(), ...config });

  // Which hardware fields each class accepts, read from the submission's union itself.
  const union = hardwareSchema(profile);
  const classFields = new Map<string, ReadonlySet<string>>(
    union.options.map((option) => [option.shape.hwClass.value, new Set(Object.keys(option.shape))]),
  );

  /**
   * The whole hardware part, once `hwClass` is given: the class's required fields must be
   * there, and fields of another class must not. Checked on the setup as it will be stored,
   * so a PATCH is judged together with what it leaves unchanged.
   */
  const hardware = z.custom<Record<string, unknown>>().superRefine((setup, ctx) => {
    const hwClass = setup.hwClass as HwClass | null | undefined;
    if (hwClass === null || hwClass === undefined) return;
    const accepted = classFields.get(hwClass)!;
    const given: Record<string, unknown> = { hwClass };
    for (const field of setupHardwareFields) {
      const value = setup[field];
      if (field === 'hwClass' || value === null || value === undefined) continue;
      if (accepted.has(field)) given[field] = value;
      else
        ctx.addIssue({ code: 'custom', path: [field], message: `Does not apply to hwClass ${hwClass}; clear it (null) or change hwClass` });
    }
    const checked = union.safeParse(given);
    if (!checked.success) {
      for (const issue of checked.error.issues) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
    }
  });

  return {
    create,
    patch,
    hardware,
    /** For each hardware class, the hardware fields it takes (hwClass included). */
    classFields: classFields as ReadonlyMap<string, ReadonlySet<string>>,
    /** The configuration fields this revision has, in answer order. */
    configFields: Object.keys(fields).filter((key) => !gated.has(key)) as SetupConfigField[],
  };
}

/** The setup schemas of a revision (built once). */
export const setupSchemas = perRevision(buildSetupSchemas);

export type SetupCreateInput = z.output<ReturnType<typeof buildSetupSchemas>['create']>;
export type SetupPatchInput = z.output<ReturnType<typeof buildSetupSchemas>['patch']>;

/** `GET /api/setups`: a page of the caller's setups; the default page holds the whole cap. */
export const setupListQuerySchema = z.strictObject({
  limit: wholeNumber(1, SETUPS_PER_ACCOUNT).default(SETUPS_PER_ACCOUNT),
  offset: wholeNumber(0, SETUPS_PER_ACCOUNT).default(0),
});
