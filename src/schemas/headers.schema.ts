import { z } from 'zod';

/** `Idempotency-Key` on a submission: optional, 1-255 visible ASCII characters. */
export const idempotencyKeySchema = z
  .string()
  .regex(/^[\x21-\x7e]{1,255}$/, 'Idempotency-Key must be 1-255 visible ASCII characters')
  .meta({
    description:
      'Makes a retry safe: the same key with the same body answers the first 201 again (with `Idempotent-Replayed: true`) without writing or using the rate limit; the same key with another body is a 422.',
  });

/** Request headers of a speed-test submission. */
export const submissionHeadersSchema = z.object({ 'Idempotency-Key': idempotencyKeySchema.optional() });
