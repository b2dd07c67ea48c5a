import { z } from 'zod';
import { reactionEmojis } from '../constants.ts';

/**
 * A reaction to a run: one of the five emojis, or null to take one's reaction back.
 * The API takes JSON; the pages post a form whose "take it back" button sends an empty
 * value, which means null here too. Both go through the same emoji rule.
 */
const EMOJI_MESSAGE = `Must be one of ${reactionEmojis.join(', ')}, or null to remove your reaction`;

const emojiField = z
  .enum(reactionEmojis, {
    error: (issue) => (issue.input === undefined ? `Required: ${EMOJI_MESSAGE.replace(/^Must be/, 'must be')}` : EMOJI_MESSAGE),
  })
  .nullable();

/** POST /api/runs/:id/react: `{ emoji }` and nothing else. */
export const reactionSchema = z.strictObject({ emoji: emojiField });

/** POST /runs/:id/react (form): `emoji` empty = remove; `_csrf` and `back` travel alongside. */
export const reactionFormSchema = z.object({
  emoji: z.preprocess((value) => (value === '' ? null : value), emojiField),
});
