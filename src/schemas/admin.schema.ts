import { z } from 'zod';

export const ADMIN_USERS_PAGE_SIZE = 50;
export const ADMIN_SPEED_TESTS_PAGE_SIZE = 50;
export const ADMIN_AUDIT_PAGE_SIZE = 50;
export const REJECTION_REASON_MAX_LENGTH = 500;

const page = z.coerce
  .number({ error: 'Must be a whole number' })
  .int('Must be a whole number')
  .min(1, 'Must be at least 1')
  .max(100_000, 'Must be at most 100000')
  .default(1);

/** A GET form sends empty fields; empty means "not filtered". */
const searchText = (max: number) =>
  z
    .string({ error: 'Must be given once, as text' })
    .trim()
    .max(max, `Must be at most ${max} characters`)
    .optional()
    .transform((v) => v || undefined);

export const adminUsersQuerySchema = z.object({
  q: searchText(64),
  page,
});

export const userVerificationSchema = z.object({
  verified: z.enum(['true', 'false']).transform((v) => v === 'true'),
});

export const userAdminRoleSchema = z.object({
  admin: z.enum(['true', 'false'], { error: 'Must be true or false' }).transform((v) => v === 'true'),
});

export const speedTestStatuses = ['APPROVED', 'REJECTED', 'PENDING', 'WITHDRAWN'] as const;

export const adminSpeedTestsQuerySchema = z.object({
  /** Substring of the model's hub id. */
  model: searchText(256),
  /** Substring of the submitter's username. */
  user: searchText(64),
  /** Substring of GPU, chip or CPU names. */
  hardware: searchText(128),
  status: z
    .union([z.literal(''), z.enum(speedTestStatuses)], { error: `Must be one of ${speedTestStatuses.join(', ')}` })
    .optional()
    .transform((v) => v || undefined),
  page,
});
export type AdminSpeedTestsQuery = z.output<typeof adminSpeedTestsQuerySchema>;

const reasonText = z
  .string({ error: 'A reason is required' })
  .trim()
  .max(REJECTION_REASON_MAX_LENGTH, `Reason must be at most ${REJECTION_REASON_MAX_LENGTH} characters`);

export const rejectSpeedTestSchema = z.object({
  reason: reasonText.min(1, 'A reason is required'),
});

export const restoreSpeedTestSchema = z.object({
  reason: reasonText.optional().transform((v) => v || undefined),
});

export const adminAuditQuerySchema = z.object({
  page,
});

/** Quality review (/admin/quality): notes are the admin notes the submitter reads. */
export const QUALITY_NOTES_MAX_LENGTH = 2000;

const notesText = z
  .string({ error: (issue) => (issue.input === undefined ? 'Notes are required to reject' : 'Notes must be given once, as text') })
  .trim()
  .max(QUALITY_NOTES_MAX_LENGTH, `Notes must be at most ${QUALITY_NOTES_MAX_LENGTH} characters`);

export const rejectQualitySchema = z.object({
  notes: notesText.min(1, 'Notes are required to reject: tell the submitter what to fix'),
});

export const approveQualitySchema = z.object({
  notes: notesText.optional().transform((v) => v || undefined),
});

export const suiteOfficialSchema = z.object({
  official: z.enum(['true', 'false'], { error: 'Must be true or false' }).transform((v) => v === 'true'),
});

export const ADMIN_HARDWARE_NAMES_PAGE_SIZE = 50;
export const hardwareNameKinds = ['gpu', 'chip', 'cpu'] as const;

export const adminHardwareQuerySchema = z.object({ page });

const hardwareNameFields = {
  kind: z.enum(hardwareNameKinds, { error: `Must be one of ${hardwareNameKinds.join(', ')}` }),
  /** The name as runs write it. */
  name: z
    .string({ error: 'The name as written is required' })
    .trim()
    .min(1, 'The name as written is required')
    .max(256, 'Must be at most 256 characters'),
  page,
};

export const hardwareNameMapSchema = z.object({
  ...hardwareNameFields,
  /** A canonical catalogue name of the kind (checked against the catalogue by the service). */
  device: z
    .string({ error: 'Pick a device from the catalogue' })
    .trim()
    .min(1, 'Pick a device from the catalogue')
    .max(256, 'Must be at most 256 characters'),
});

export const hardwareNameUnmapSchema = z.object(hardwareNameFields);
