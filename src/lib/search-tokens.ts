/**
 * Searches as people type them: words in any order, each of which must appear in the
 * searched text (a superset of the old one-substring match: every word of a matching
 * substring is itself a substring). Pure: conditions come back as SQL text and bindings for the services to run.
 */
import { escapeLike } from './like-patterns.ts';

/** The words of a search: lower case, split on white space, each once, in order. */
export function searchTokens(text: string): string[] {
  return [...new Set(text.toLowerCase().split(/\s+/).filter(Boolean))];
}

/**
 * Maker and brand words a hardware name may or may not carry ("Apple M4 Max" is stored as
 * chip M4 Max by Apple, "RTX 4060 Ti" without NVIDIA): optional when other words are given.
 */
const HARDWARE_VENDOR_WORDS = new Set(['nvidia', 'amd', 'intel', 'apple', 'qualcomm', 'geforce']);

/** The words of a hardware-name search that must match: the vendor is optional ("apple m4 max" needs "m4" and "max"). */
export function hardwareNameTokens(text: string): string[] {
  const tokens = searchTokens(text);
  const named = tokens.filter((token) => !HARDWARE_VENDOR_WORDS.has(token));
  return named.length > 0 ? named : tokens;
}

/**
 * Separators model ids and families write either way (`qwen3_moe`, `qwen3moe`,
 * `Llama-3.1` or `llama 3.1`): dropped on both sides before comparing.
 */
export const squashSeparators = (text: string): string => text.replace(/[-_\s]/g, '');

/** Whether lower-case `text` contains lower-case `token` with separators ignored (`everyTokenSql`'s squashed rule, in JS). */
export function containsSquashed(text: string, token: string): boolean {
  const bare = squashSeparators(token);
  return bare ? squashSeparators(text).includes(bare) : text.includes(token);
}

/** The same, as SQL over a lower-case column expression. */
export const squashSeparatorsSql = (expression: string): string => `regexp_replace(${expression}, '[-_[:space:]]', '', 'g')`;

/** A LIKE pattern for text containing `token` (already lower case), with `%`, `_` and `\` literal. */
export const containsToken = (token: string): string => `%${escapeLike(token)}%`;

/**
 * A SQL condition that every word of `text` occurs in the lower-case `expression`, with
 * separators ignored when `squashed`; a word that is only separators is matched as typed.
 */
export function everyTokenSql(
  expression: string,
  tokens: readonly string[],
  { squashed = false } = {},
): { sql: string; bindings: string[] } {
  const conditions: string[] = [];
  const bindings: string[] = [];
  for (const token of tokens) {
    const bare = squashed ? squashSeparators(token) : token;
    conditions.push(squashed && bare ? `${squashSeparatorsSql(expression)} like ?` : `${expression} like ?`);
    bindings.push(containsToken(bare || token));
  }
  return { sql: conditions.length ? `(${conditions.join(' and ')})` : 'true', bindings };
}
