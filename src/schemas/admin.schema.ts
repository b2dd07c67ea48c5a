import { z } from 'zod';

export const ADMIN_USERS_PAGE_SIZE = 50;

export const adminUsersQuerySchema = z.object({
  q: z.string().trim().max(64).optional().transform((v) => v || undefined),
  page: z.coerce.number().int().min(1).max(100_000).default(1),
});

export const userVerificationSchema = z.object({
  verified: z.enum(['true', 'false']).transform((v) => v === 'true'),
});
