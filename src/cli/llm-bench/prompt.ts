import { randomUUID } from 'node:crypto';

/**
 * Benchmark prompts: a unique nonce LEADS every prompt, so no prefix cache can answer a
 * timed prompt from an earlier one and fake its prefill speed; common English words fill it
 * to a token count (about one token a word, corrected from the server's own counts).
 */
const INSTRUCTION = 'Ignore the identifier above. Write a long story that continues the following words, and keep writing:';
const WORDS = (
  'the of and to in is that for it as was with be by on not he this are or his from at which but have an they you were her she there one all we ' +
  'their can has more would will been when who out up if about into some them time other than then its only over also new first any these could ' +
  'people may after so most made between many before work such year well way even because good those great back over little world still day long'
).split(' ');

export const newNonce = (): string => randomUUID();

/** The words that make about `tokens` tokens at `tokensPerWord`. */
export function wordsFor(tokens: number, tokensPerWord: number): number {
  return Math.max(1, Math.round(tokens / tokensPerWord));
}

/** A whole prompt of about `tokens` tokens: the nonce and instruction count too. */
export function promptOf(nonce: string, tokens: number, tokensPerWord: number): string {
  const overhead = promptWords(benchPrompt(nonce, 0));
  return benchPrompt(nonce, Math.max(1, wordsFor(tokens, tokensPerWord) - overhead));
}

/** `nonce instruction\n\nfiller...`: `words` filler words after the nonce and the instruction. */
export function benchPrompt(nonce: string, words: number): string {
  const filler: string[] = [];
  const offset = parseInt(nonce.slice(0, 4), 16) || 0;
  for (let i = 0; i < words; i += 1) filler.push(WORDS[(offset + i * 7) % WORDS.length]!);
  return `${nonce} ${INSTRUCTION}\n\n${filler.join(' ')}`;
}

/** The words of a prompt built by `benchPrompt` (for calibration against the server's count). */
export function promptWords(prompt: string): number {
  return prompt.split(/\s+/).filter(Boolean).length;
}

/** A longer prompt with the same start: `prefix` followed by `words` more filler words. */
export function extendPrompt(prefix: string, nonce: string, words: number): string {
  return `${prefix} ${benchPrompt(nonce, words).split('\n\n')[1]}`;
}
