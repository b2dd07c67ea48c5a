import { RE2JS } from 're2js';

/**
 * Scoring model answers against a suite's accepted answers: the server re-scores uploaded
 * traces with it, and server-side execution scores live answers with the same code.
 *
 * Text scoring follows SQuAD v1.1's evaluate script (normalise: lower-case, drop
 * punctuation, drop the articles a/an/the, collapse whitespace; exact match; token F1
 * taking the best accepted answer). Multiple-choice answers are reduced to a letter first.
 * Patterns from suite authors run on RE2 (re2js): matching is linear in the text, so a
 * hostile pattern cannot stall the event loop.
 */

export type AnswerExtraction = 'none' | 'final_answer' | 'last_number' | 'regex';
export type TextScoringMethod = 'exact_match' | 'f1';
export type TaskType = 'multiple_choice' | 'qa' | 'judge';
export type Aggregation = 'weighted_mean' | 'mean' | 'min' | 'max';
export type Gold = string | number | readonly (string | number)[];

export interface ScoringOverrides {
  ignoreCase?: boolean;
  ignorePunctuation?: boolean;
  regexesToIgnore?: readonly string[];
}

/** Longest author pattern accepted. */
export const MAX_PATTERN_LENGTH = 500;
/** Responses are scored on their first 100,000 characters: answers are short, and this bounds the work per item. */
export const MAX_SCORED_CHARACTERS = 100_000;

const compiled = new Map<string, RE2JS>();

/** An author pattern compiled once (callers have checked it with `userRegexProblem`). */
function authorPattern(pattern: string): RE2JS {
  let regex = compiled.get(pattern);
  if (!regex) {
    regex = RE2JS.compile(pattern);
    // Suites are few; the cache only needs to stop growing without bound.
    if (compiled.size > 1000) compiled.clear();
    compiled.set(pattern, regex);
  }
  return regex;
}

/** Null when `pattern` is an acceptable RE2 pattern, else why not. */
export function userRegexProblem(pattern: string): string | null {
  if (pattern.length > MAX_PATTERN_LENGTH) return `Must be at most ${MAX_PATTERN_LENGTH} characters`;
  try {
    RE2JS.compile(pattern);
    return null;
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    if (/\\[1-9]|\(\?[=!<]/.test(pattern)) return 'Backreferences and lookaround are not supported (RE2 syntax)';
    return `Not a valid regular expression (RE2 syntax): ${detail}`;
  }
}

/**
 * The answer without its reasoning: `<think>...</think>` blocks removed; with a closing tag
 * but no opening one (templates that put `<think>` in the prompt), only what follows the
 * last `</think>`; an unclosed `<think>` drops everything after it (the answer never came).
 */
export function stripReasoning(response: string): string {
  let text = response.replace(/<think>[\s\S]*?<\/think>/gi, '');
  const lastClose = text.toLowerCase().lastIndexOf('</think>');
  if (lastClose >= 0) text = text.slice(lastClose + '</think>'.length);
  const open = text.toLowerCase().indexOf('<think>');
  if (open >= 0) text = text.slice(0, open);
  return text.trim();
}

/** `\boxed{...}` contents with balanced braces, the last one in the text. */
function lastBoxed(text: string): string | null {
  const start = text.lastIndexOf('\\boxed{');
  if (start < 0) return null;
  let depth = 0;
  for (let i = start + '\\boxed'.length; i < text.length; i += 1) {
    if (text[i] === '{') depth += 1;
    else if (text[i] === '}' && --depth === 0) return text.slice(start + '\\boxed{'.length, i).trim();
  }
  return null;
}

// Each is linear: a literal lead, then a run of non-newline characters.
const FINAL_ANSWER_PATTERNS = [/####[ \t]*([^\n]*)/g, /final answer(?: is)?[ \t]*[:：]?[ \t]*([^\n]*)/gi, /the answer is[ \t]*[:：]?[ \t]*([^\n]*)/gi, /answer[ \t]*[:：][ \t]*([^\n]*)/gi];

/** The statement of a final answer that comes last in the text, or null. */
function lastStatedAnswer(text: string): string | null {
  let best: { at: number; value: string } | null = null;
  const boxed = text.lastIndexOf('\\boxed{');
  if (boxed >= 0) {
    const value = lastBoxed(text);
    if (value !== null) best = { at: boxed, value };
  }
  for (const pattern of FINAL_ANSWER_PATTERNS) {
    for (const match of text.matchAll(pattern)) {
      if (!best || match.index > best.at) best = { at: match.index, value: match[1]! };
    }
  }
  return best ? best.value.trim().replace(/\.$/, '').trim() : null;
}

/** `1,234.50` -> `1234.5`, `+3` -> `3`, `18.0` -> `18`, `-0.250` -> `-0.25`. */
export function canonicalNumber(text: string): string {
  let number = text.replace(/,/g, '').replace(/^\+/, '');
  if (number.includes('.')) number = number.replace(/0+$/, '').replace(/\.$/, '');
  if (number === '-0' || number === '') number = '0';
  return number;
}

const NUMBER = /[-+]?\d{1,3}(?:,\d{3})+(?:\.\d+)?|[-+]?\d+(?:\.\d+)?|[-+]?\.\d+/g;

/** The last number in the text, canonical, or '' when there is none. */
function lastNumber(text: string): string {
  let last: string | undefined;
  for (const match of text.matchAll(NUMBER)) last = match[0];
  return last === undefined ? '' : canonicalNumber(last.startsWith('.') || last.startsWith('-.') ? last.replace('.', '0.') : last);
}

/** The answer part of a reasoning-free response, by the task's extraction mode. */
export function extractAnswer(text: string, mode: AnswerExtraction, answerRegex?: string): string {
  const bounded = text.length > MAX_SCORED_CHARACTERS ? text.slice(0, MAX_SCORED_CHARACTERS) : text;
  switch (mode) {
    case 'none':
      return bounded.trim();
    case 'final_answer': {
      const stated = lastStatedAnswer(bounded);
      if (stated !== null) return stated;
      const lines = bounded.split('\n').map((line) => line.trim()).filter(Boolean);
      return lines.at(-1) ?? '';
    }
    case 'last_number':
      return lastNumber(bounded);
    case 'regex': {
      if (!answerRegex) return '';
      const regex = authorPattern(answerRegex);
      const matcher = regex.matcher(bounded);
      let answer = '';
      while (matcher.find()) answer = (regex.groupCount() > 0 ? matcher.group(1) : matcher.group()) ?? '';
      return answer.trim();
    }
  }
}

// SQuAD strips Python's string.punctuation; Unicode punctuation is stripped too, so curly quotes and dashes count as punctuation.
const PUNCTUATION = /[\p{P}\p{S}]/gu;
const ARTICLES = /\b(a|an|the)\b/g;

/** SQuAD normalisation, with the suite's overrides (each default on). */
export function normaliseAnswer(text: string, overrides: ScoringOverrides = {}): string {
  let value = text.length > MAX_SCORED_CHARACTERS ? text.slice(0, MAX_SCORED_CHARACTERS) : text;
  for (const pattern of overrides.regexesToIgnore ?? []) value = authorPattern(pattern).matcher(value).replaceAll('');
  if (overrides.ignoreCase !== false) value = value.toLowerCase();
  if (overrides.ignorePunctuation !== false) value = value.replace(PUNCTUATION, '');
  // SQuAD removes articles after lower-casing; with case kept, only lower-case articles go.
  value = value.replace(ARTICLES, ' ');
  return value.split(/\s+/).filter(Boolean).join(' ');
}

/** The accepted answers of a gold value, as text. */
export function acceptedAnswers(gold: Gold): string[] {
  return (Array.isArray(gold) ? gold : [gold]).map(String);
}

/** 1 when the normalised prediction equals a normalised accepted answer. */
export function exactMatch(prediction: string, gold: Gold, overrides?: ScoringOverrides): 0 | 1 {
  const normalised = normaliseAnswer(prediction, overrides);
  return acceptedAnswers(gold).some((answer) => normaliseAnswer(answer, overrides) === normalised) ? 1 : 0;
}

function f1Against(predictionTokens: string[], answerTokens: string[]): number {
  // Both empty: the prediction says exactly nothing, as asked (SQuAD v2's rule); one empty: no overlap.
  if (predictionTokens.length === 0 || answerTokens.length === 0) return predictionTokens.length === answerTokens.length ? 1 : 0;
  const counts = new Map<string, number>();
  for (const token of answerTokens) counts.set(token, (counts.get(token) ?? 0) + 1);
  let common = 0;
  for (const token of predictionTokens) {
    const left = counts.get(token) ?? 0;
    if (left > 0) {
      common += 1;
      counts.set(token, left - 1);
    }
  }
  if (common === 0) return 0;
  const precision = common / predictionTokens.length;
  const recall = common / answerTokens.length;
  return (2 * precision * recall) / (precision + recall);
}

/** SQuAD token F1 against each accepted answer; the best one. */
export function tokenF1(prediction: string, gold: Gold, overrides?: ScoringOverrides): number {
  const tokens = (text: string) => normaliseAnswer(text, overrides).split(' ').filter(Boolean);
  const predicted = tokens(prediction);
  return Math.max(...acceptedAnswers(gold).map((answer) => f1Against(predicted, tokens(answer))));
}

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const letterAt = (index: number, choices: readonly string[]) => (Number.isInteger(index) && index >= 0 && index < choices.length ? LETTERS[index]! : null);
const inRange = (letter: string, choices: readonly string[]) => letterAt(LETTERS.indexOf(letter.toUpperCase()), choices);

// Explicit answer statements, then a lone letter in a shape answers take.
const STATED_LETTER = /(?:answer|choice|option)(?: is)?[ \t]*[:：]?[ \t]*\(?([A-Za-z])\)?(?![A-Za-z])/gi;
const LONE_LETTER = /^\(?([A-Za-z])(?:[).:]|\)?$)/;

/** The letter a response picks among `choices`, or null. */
export function choiceLetter(response: string, choices: readonly string[]): string | null {
  const text = (response.length > MAX_SCORED_CHARACTERS ? response.slice(0, MAX_SCORED_CHARACTERS) : response).trim();
  let stated: string | null = null;
  for (const match of text.matchAll(STATED_LETTER)) stated = inRange(match[1]!, choices) ?? stated;
  if (stated) return stated;
  const lone = LONE_LETTER.exec(text);
  if (lone) {
    const letter = inRange(lone[1]!, choices);
    // "A cat." starts with a letter too: a lone letter counts only when nothing but punctuation follows, or it is not a word.
    if (letter && (text.length <= 3 || /^\(?[A-Za-z][).:]/.test(text))) return letter;
  }
  const normalised = normaliseAnswer(text);
  const byText = choices.findIndex((choice) => normaliseAnswer(choice) === normalised);
  return byText >= 0 ? letterAt(byText, choices) : null;
}

/** The gold letter of a multiple-choice item: a 0-based index, a letter in range, or a choice's text. */
export function goldLetter(gold: Gold, choices: readonly string[]): string | null {
  for (const answer of Array.isArray(gold) ? gold : [gold]) {
    if (typeof answer === 'number') {
      const letter = letterAt(answer, choices);
      if (letter) return letter;
      continue;
    }
    const trimmed = answer.trim();
    if (/^[A-Za-z]$/.test(trimmed)) {
      const letter = inRange(trimmed, choices);
      if (letter) return letter;
    }
    const byText = choices.findIndex((choice) => normaliseAnswer(choice) === normaliseAnswer(trimmed));
    if (byText >= 0) return letterAt(byText, choices);
  }
  return null;
}

export interface ItemScoringRule {
  method: TextScoringMethod;
  taskType: TaskType;
  answerExtraction?: AnswerExtraction;
  answerRegex?: string;
  scoring?: ScoringOverrides;
}

export interface ScorableItem {
  gold: Gold;
  choices?: readonly string[];
}

/**
 * One response's score in [0, 1] and the answer that was compared. Multiple choice: both
 * sides reduced to a letter (1 when equal, whatever the method). Otherwise the answer is
 * extracted and compared by exact match or token F1; with `last_number`, numeric accepted
 * answers are compared in the same canonical form.
 */
export function scoreResponse(rule: ItemScoringRule, item: ScorableItem, response: string): { score: number; extracted: string } {
  const text = stripReasoning(response);
  if (rule.taskType === 'multiple_choice' && item.choices) {
    const extracted = extractAnswer(text, rule.answerExtraction ?? 'none', rule.answerRegex);
    const picked = choiceLetter(extracted, item.choices);
    const expected = goldLetter(item.gold, item.choices);
    return { score: picked !== null && picked === expected ? 1 : 0, extracted: picked ?? extracted };
  }
  const extraction = rule.answerExtraction ?? 'none';
  const extracted = extractAnswer(text, extraction, rule.answerRegex);
  const gold = extraction === 'last_number' ? acceptedAnswers(item.gold).map((answer) => (/^[-+]?[\d,]*\.?\d+$/.test(answer.trim()) ? canonicalNumber(answer.trim()) : answer)) : item.gold;
  const score = rule.method === 'f1' ? tokenF1(extracted, gold, rule.scoring) : exactMatch(extracted, gold, rule.scoring);
  return { score, extracted };
}

/** The suite's aggregate of task scores (fractions): weighted_mean = sum(w*s)/sum(w), mean, min or max. */
export function aggregateScores(tasks: readonly { score: number; weight: number }[], mode: Aggregation): number {
  if (tasks.length === 0) throw new RangeError('aggregateScores: no tasks');
  const scores = tasks.map((task) => task.score);
  switch (mode) {
    case 'weighted_mean': {
      const weight = tasks.reduce((sum, task) => sum + task.weight, 0);
      return tasks.reduce((sum, task) => sum + task.weight * task.score, 0) / weight;
    }
    case 'mean':
      return scores.reduce((sum, score) => sum + score, 0) / scores.length;
    case 'min':
      return Math.min(...scores);
    case 'max':
      return Math.max(...scores);
  }
}

/**
 * Standard error of the aggregate (a fraction) from the tasks' standard errors, taking the
 * tasks as independent: weighted_mean sqrt(sum((w_i/W)^2 se_i^2)), mean the same with equal
 * weights. Null when a task has none, and for min and max, which no such sum describes.
 */
export function aggregateStandardError(tasks: readonly { weight: number; stdError: number | null }[], mode: Aggregation): number | null {
  if (tasks.length === 0 || (mode !== 'weighted_mean' && mode !== 'mean')) return null;
  if (tasks.some((task) => task.stdError === null || !Number.isFinite(task.stdError))) return null;
  const weightOf = (task: { weight: number }) => (mode === 'mean' ? 1 : task.weight);
  const total = tasks.reduce((sum, task) => sum + weightOf(task), 0);
  return Math.sqrt(tasks.reduce((sum, task) => sum + (weightOf(task) / total) ** 2 * task.stdError! ** 2, 0));
}

/** Standard error of a proportion-like score over n samples, sqrt(s(1-s)/n); null without a positive n. */
export function standardError(score: number, nSamples: number | null | undefined): number | null {
  if (!nSamples || !Number.isInteger(nSamples) || nSamples < 1) return null;
  return Math.sqrt((score * (1 - score)) / nSamples);
}

/** Standard error of the mean of item scores: sample standard deviation / sqrt(n); null below two items. */
export function standardErrorOfScores(scores: readonly number[]): number | null {
  if (scores.length < 2) return null;
  const mean = scores.reduce((sum, score) => sum + score, 0) / scores.length;
  const variance = scores.reduce((sum, score) => sum + (score - mean) ** 2, 0) / (scores.length - 1);
  return Math.sqrt(variance / scores.length);
}
