/** LIKE patterns from user text: `%`, `_` and `\` match themselves, not as wildcards. */
export const escapeLike = (text: string): string => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Matches text containing `text`, for columns kept in lower case. */
export const containsLowercase = (text: string): string => `%${escapeLike(text.toLowerCase())}%`;
