import { z } from 'zod';

export const API_KEY_PATTERN = /^bhk_[0-9a-f]{40}$/;

export const createApiKeySchema = z.strictObject({
  name: z
    .string({ error: 'Name is required' })
    .trim()
    .min(1, 'Name is required')
    .max(100, 'Name must be at most 100 characters')
    .regex(/^[^\u0000-\u001f\u007f]*$/, 'Name must not contain control characters'),
  expiresAt: z.iso
    .datetime({ offset: true, error: 'Must be an ISO-8601 date-time, e.g. 2027-01-31T00:00:00Z' })
    .refine((value) => Date.parse(value) > Date.now(), 'Must be in the future')
    .optional()
    .nullable(),
});
export type CreateApiKeyInput = z.infer<typeof createApiKeySchema>;
