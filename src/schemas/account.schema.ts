import { z } from 'zod';

export const USERNAME_PATTERN = /^[A-Za-z0-9_-]{3,32}$/;
export const PASSWORD_MIN_LENGTH = 10;
export const DISPLAY_NAME_MAX_LENGTH = 64;

export const usernameSchema = z
  .string({ error: 'Username is required' })
  .trim()
  .regex(USERNAME_PATTERN, 'Username must be 3-32 characters: letters, digits, _ or -');

/** Optional: left empty, the account shows its username. */
export const displayNameSchema = z
  .string({ error: 'Display name must be text' })
  .trim()
  .max(DISPLAY_NAME_MAX_LENGTH, `Display name must be at most ${DISPLAY_NAME_MAX_LENGTH} characters`)
  .optional()
  .transform((value) => value || undefined);

// The upper bound keeps hashing cost bounded for absurd inputs.
const newPasswordSchema = z
  .string({ error: 'Password is required' })
  .min(PASSWORD_MIN_LENGTH, `Password must be at least ${PASSWORD_MIN_LENGTH} characters`)
  .max(256, 'Password must be at most 256 characters');

export const signUpSchema = z.object({
  username: usernameSchema,
  displayName: displayNameSchema,
  password: newPasswordSchema,
});

export const signInSchema = z.object({
  username: z.string({ error: 'Username is required' }).trim().min(1, 'Username is required').max(64),
  password: z.string({ error: 'Password is required' }).min(1, 'Password is required').max(256),
  next: z.string().optional(),
});

/** /settings/profile: the display name, by the sign-up rule. */
export const profileSettingsSchema = z.object({
  displayName: displayNameSchema,
});

/** /settings/profile/password: the current password proves it is the owner, not a borrowed session. */
export const changePasswordSchema = z.object({
  currentPassword: z
    .string({ error: 'Current password is required' })
    .min(1, 'Current password is required')
    .max(256, 'Password must be at most 256 characters'),
  newPassword: newPasswordSchema,
});
