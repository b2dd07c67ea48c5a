import { z } from 'zod';

export const USERNAME_PATTERN = /^[A-Za-z0-9_-]{3,32}$/;
export const PASSWORD_MIN_LENGTH = 10;

export const usernameSchema = z
  .string({ error: 'Username is required' })
  .trim()
  .regex(USERNAME_PATTERN, 'Username must be 3-32 characters: letters, digits, _ or -');

export const signUpSchema = z.object({
  username: usernameSchema,
  displayName: z
    .string()
    .trim()
    .max(64, 'Display name must be at most 64 characters')
    .optional()
    .transform((value) => value || undefined),
  // The upper bound keeps hashing cost bounded for absurd inputs.
  password: z
    .string({ error: 'Password is required' })
    .min(PASSWORD_MIN_LENGTH, `Password must be at least ${PASSWORD_MIN_LENGTH} characters`)
    .max(256, 'Password must be at most 256 characters'),
});
export type SignUpInput = z.infer<typeof signUpSchema>;

export const signInSchema = z.object({
  username: z.string({ error: 'Username is required' }).trim().min(1, 'Username is required').max(64),
  password: z.string({ error: 'Password is required' }).min(1, 'Password is required').max(256),
  next: z.string().optional(),
});
