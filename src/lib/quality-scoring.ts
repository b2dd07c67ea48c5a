/**
 * Quality scoring: turns one model response into a score for one suite item.
 *
 * The server re-scores uploaded `exact_match` and `f1` tasks from the per-item responses,
 * and the server-side executor scores model answers with this same code, so both must
 * agree to the last digit: normalisation and token F1 follow the SQuAD v1.1 evaluation
 * script (evaluate-v1.1.py) exactly, with Python's punctuation and whitespace sets.
 *
 * Everything here runs on text we do not control. Responses come from clients and can be
 * long; patterns come from suite authors. So: every built-in pattern is linear (no nested
 * quantifiers, each match attempt bounded by the run it starts), user patterns run only
 * through RE2 (re2js: no backtracking, time linear in text x pattern size) with a cap on
 * the pattern's size, and at most MAX_SCORED_CHARS of a response are scored. Pure: no I/O.
 */
import { RE2JS } from 're2js';

export type AnswerExtraction = 'none' | 'final_answer' | 'last_number' | 'regex';
export type TextScoringMethod = 'exact_match' | 'f1';
export type TaskType = 'multiple_choice' | 'qa' | 'judge';
export type Aggregation = 'weighted_mean' | 'mean' | 'min' | 'max';
export type Gold = string | number | readonly (string | number)[];

export interface ScoringOverrides {
  /** Lower-case both sides before comparing (default true). */
  ignoreCase?: boolean;
  /** Remove ASCII punctuation before comparing (default true). */
  ignorePunctuation?: boolean;
  /** RE2 patterns whose matches are removed before anything else. */
  regexesToIgnore?: readonly string[];
}

/**
 * Only this many characters of a (reasoning-stripped) response are scored. Every step is
 * linear, but a user pattern costs up to text length x pattern size and the scoring runs
 * on the request's thread, so the text has to be bounded too. Any real answer is far
 * shorter; a response that only reaches its answer after 100,000 characters scores as if
 * it had none.
 */
export const MAX_SCORED_CHARS = 100_000;

/** Longest user pattern accepted. */
export const MAX_USER_REGEX_LENGTH = 500;

/**
 * Largest compiled user pattern, in RE2 instructions. RE2 time is linear in the text but
 * also in the program size, and counted repetition makes programs big: a 480-character
 * pattern such as `(.{0,1000}x)` repeated compiles to 80,000 instructions and took 7 to 11
 * seconds on a 100,000-character response. At 200 instructions the worst case measured was
 * about a second; realistic answer patterns compile to 10 to 90. (A plain literal costs one
 * instruction per character, so literals longer than about 200 characters are refused too.)
 */
export const MAX_USER_REGEX_PROGRAM_SIZE = 200;

// --- Reasoning ---------------------------------------------------------------------------

/** Opening and closing think tags, any case. A literal alternation: linear. */
const THINK_TAG = /<(\/?)think>/gi;

/**
 * Text after reasoning is removed: every <think>...</think> block (case-insensitive, across lines);
 * a response that contains `</think>` without an opening tag (templates that put <think> in the prompt)
 * keeps only what follows the last `</think>`; an unclosed `<think>` drops everything after it. Trimmed.
 *
 * One pass over the tags: a block runs from an opening tag to the next closing tag (an
 * opening tag inside a block is reasoning too); a closing tag outside any block means
 * everything before it was reasoning.
 */
export function stripReasoning(response: string): string {
  let kept = '';
  let visibleFrom = 0;
  let inBlock = false;
  for (const tag of response.matchAll(THINK_TAG)) {
    const closing = tag[1] === '/';
    const at = tag.index;
    if (inBlock) {
      if (closing) {
        inBlock = false;
        visibleFrom = at + tag[0].length;
      }
    } else if (closing) {
      kept = '';
      visibleFrom = at + tag[0].length;
    } else {
      kept += response.slice(visibleFrom, at);
      inBlock = true;
    }
  }
  if (!inBlock) kept += response.slice(visibleFrom);
  return kept.trim();
}

/** The first MAX_SCORED_CHARS characters of `text`, never ending inside a surrogate pair. */
export function capResponse(text: string): string {
  if (text.length <= MAX_SCORED_CHARS) return text;
  let end = MAX_SCORED_CHARS;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return text.slice(0, end);
}

// --- User patterns (RE2) -----------------------------------------------------------------

const compiledPatterns = new Map<string, RE2JS>();
/** Patterns come from suites, so few are distinct; the bound only guards against growth. */
const MAX_CACHED_PATTERNS = 256;

/** The compiled pattern, or the reason it is refused. Successes are cached. */
function compileUserRegexOrProblem(pattern: string): RE2JS | string {
  const cached = compiledPatterns.get(pattern);
  if (cached) return cached;
  if (pattern.length > MAX_USER_REGEX_LENGTH) return `Must be at most ${MAX_USER_REGEX_LENGTH} characters`;
  let regex: RE2JS;
  try {
    regex = RE2JS.compile(pattern);
  } catch (error) {
    if (usesBackreferenceOrLookaround(pattern)) return 'Backreferences and lookaround are not supported';
    const message = error instanceof Error ? error.message : String(error);
    return `Not a valid regular expression: ${message.replace(/^error parsing regexp: /, '')}`;
  }
  const size = regex.programSize();
  if (size > MAX_USER_REGEX_PROGRAM_SIZE) {
    return `Too complex: compiles to ${size} RE2 instructions, at most ${MAX_USER_REGEX_PROGRAM_SIZE} are allowed`;
  }
  if (compiledPatterns.size >= MAX_CACHED_PATTERNS) {
    compiledPatterns.delete(compiledPatterns.keys().next().value as string);
  }
  compiledPatterns.set(pattern, regex);
  return regex;
}

/**
 * Whether a pattern RE2 refused uses a Perl feature RE2 leaves out on purpose: a
 * backreference (`\1`, `\k<name>`, `\g1`) or lookaround (`(?=`, `(?!`, `(?<=`, `(?<!`).
 * Only picks the error message, so it skips escapes, `\Q...\E` and character classes
 * roughly the way RE2 reads them and nothing more.
 */
function usesBackreferenceOrLookaround(pattern: string): boolean {
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      const next = pattern[i + 1] ?? '';
      if (next === 'Q' && !inClass) {
        const end = pattern.indexOf('\\E', i + 2);
        if (end < 0) return false;
        i = end + 1;
        continue;
      }
      // `\1` to `\9` not followed by an octal digit: RE2 reads `\12` as an octal escape.
      const backreference = (next >= '1' && next <= '9' && !/[0-7]/.test(pattern[i + 2] ?? '')) || next === 'k' || next === 'g';
      if (backreference && !inClass) return true;
      i += 1;
      continue;
    }
    if (inClass) {
      if (c === '[' && pattern[i + 1] === ':') {
        const end = pattern.indexOf(':]', i + 2);
        if (end >= 0) i = end + 1;
      } else if (c === ']') {
        inClass = false;
      }
      continue;
    }
    if (c === '[') {
      inClass = true;
      if (pattern[i + 1] === '^') i += 1;
      if (pattern[i + 1] === ']') i += 1; // a `]` first in a class is literal
      continue;
    }
    if (c === '(' && pattern[i + 1] === '?') {
      const after = pattern.slice(i + 2, i + 4);
      if (after[0] === '=' || after[0] === '!' || after === '<=' || after === '<!') return true;
    }
  }
  return false;
}

/** The compiled user pattern; throws a RangeError with the reason for a refused one. */
function compileUserRegex(pattern: string): RE2JS {
  const result = compileUserRegexOrProblem(pattern);
  if (typeof result === 'string') throw new RangeError(`Unusable pattern ${JSON.stringify(pattern.slice(0, 60))}: ${result}`);
  return result;
}

/**
 * null when the pattern is acceptable; otherwise a short English reason ("Not a valid regular expression: ..."
 * or "Backreferences and lookaround are not supported"), used by the suite schema to refuse bad patterns.
 * Patterns are RE2 syntax (via the `re2js` package, linear-time), compiled with no flags (inline `(?i)`,
 * `(?s)`, `(?m)` work). Max pattern length 500 chars ("Must be at most 500 characters"), and at most
 * MAX_USER_REGEX_PROGRAM_SIZE compiled instructions ("Too complex: ...") so a match stays cheap.
 */
export function userRegexProblem(pattern: string): string | null {
  const result = compileUserRegexOrProblem(pattern);
  return typeof result === 'string' ? result : null;
}

// --- Answer extraction -------------------------------------------------------------------

/**
 * Answer statements: "answer:" and "answer is" (so "final answer:", "the answer is",
 * "the final answer is", "**Answer:**" too) and GSM8K's "####". Each attempt starts on a
 * literal and only scans the run of spaces/asterisks right after it: linear.
 */
const ANSWER_MARKER = /\banswer(?:[*_ \t]*:|[ \t]+is\b)|####/gi;

interface AnswerStatement {
  /** Where the statement starts: orders statements, the last one wins. */
  at: number;
  /** Its answer text, not yet cleaned. */
  text: () => string;
}

/** Index of the end of the line containing `from` (or text.length). */
function lineEnd(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 13) return i;
  }
  return text.length;
}

/**
 * Trims an answer: surrounding whitespace and markdown asterisks, a leading colon (as in
 * "the answer is: B") and one trailing period. Hand-written loops, as `/\*+$/` would be
 * quadratic on a long run of asterisks.
 */
function cleanAnswer(raw: string): string {
  const strip = (c: string) => c === '*' || /\s/.test(c);
  let start = 0;
  let end = raw.length;
  while (start < end && (strip(raw[start]!) || raw[start] === ':')) start++;
  while (end > start && strip(raw[end - 1]!)) end--;
  if (end > start && raw[end - 1] === '.') {
    end--;
    while (end > start && strip(raw[end - 1]!)) end--;
  }
  return raw.slice(start, end);
}

/**
 * `\boxed{...}` contents with balanced braces, in one pass with a stack (a scan per
 * `\boxed` would be quadratic on many unclosed ones). `\{`, `\}` and `\\` are literal
 * characters in LaTeX, so they do not count as braces.
 */
function boxedStatements(text: string): AnswerStatement[] {
  const found: AnswerStatement[] = [];
  if (!text.includes('\\boxed')) return found;
  // One entry per open brace: where its \boxed starts and its content starts, or null for a plain brace.
  const open: ({ at: number; contentStart: number } | null)[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') {
      if (text.startsWith('boxed', i + 1)) {
        let j = i + 6;
        while (text[j] === ' ') j++;
        if (text[j] === '{') {
          open.push({ at: i, contentStart: j + 1 });
          i = j;
        } else {
          i += 5;
        }
      } else if (text[i + 1] === '{' || text[i + 1] === '}' || text[i + 1] === '\\') {
        i += 1;
      }
    } else if (c === '{') {
      open.push(null);
    } else if (c === '}' && open.length > 0) {
      const brace = open.pop();
      if (brace) {
        const { contentStart } = brace;
        const contentEnd = i;
        found.push({ at: brace.at, text: () => text.slice(contentStart, contentEnd) });
      }
    }
  }
  return found.sort((a, b) => a.at - b.at);
}

/**
 * Every answer statement, in order. A marker's answer runs to the end of its line, or to
 * the next marker on that line; when a line's last marker has nothing after it ("Final
 * answer:\n\n42"), the next non-empty line is the answer. These ranges never overlap, so
 * reading all of them stays linear.
 */
function answerStatements(text: string): AnswerStatement[] {
  const markers = [...text.matchAll(ANSWER_MARKER)];
  // Markers come in order, so one line end serves every marker on its line (finding it
  // again per marker would be quadratic on a line full of them).
  let eol = -1;
  const statements: AnswerStatement[] = markers.map((marker, k) => {
    const from = marker.index + marker[0].length;
    if (from > eol) eol = lineEnd(text, from);
    const nextAt = markers[k + 1]?.index ?? text.length;
    const lineEndAt = eol;
    return {
      at: marker.index,
      text: () => {
        if (nextAt < lineEndAt) return text.slice(from, nextAt);
        const rest = text.slice(from, lineEndAt);
        if (cleanAnswer(rest) !== '' || nextAt <= lineEndAt) return rest;
        // Nothing after the line's last marker: the next non-empty line, unless that line
        // holds the next statement (which then speaks for itself).
        let start = lineEndAt;
        while (start < text.length) {
          while (start < text.length && (text[start] === '\n' || text[start] === '\r')) start++;
          const end = lineEnd(text, start);
          if (nextAt < end) return '';
          const line = text.slice(start, end);
          if (line.trim() !== '') return line;
          start = end;
        }
        return '';
      },
    };
  });
  const boxed = boxedStatements(text);
  if (boxed.length === 0) return statements;
  return [...statements, ...boxed].sort((a, b) => a.at - b.at);
}

/** The last non-empty line of `text`, trimmed ('' when there is none). */
function lastNonEmptyLine(text: string): string {
  let end = text.length;
  while (end > 0) {
    let start = end;
    while (start > 0 && text[start - 1] !== '\n' && text[start - 1] !== '\r') start--;
    const line = text.slice(start, end).trim();
    if (line !== '') return line;
    end = start - 1;
  }
  return '';
}

/**
 * Numbers for last_number: an optional sign (ASCII or U+2212 minus), then digits with
 * thousands separators (`1,234`, only when every group has three digits) or plain digits,
 * then optional decimals; or a bare `.5`. Alternatives start on a digit or sign and the
 * separator group backtracks by at most one group per try: linear.
 */
const NUMBER = /([+\-\u2212]?)(?:(\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.(\d+))?|\.(\d+))/g;
const WHOLE_NUMBER = /^([+\-\u2212]?)(?:(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?|\.(\d+))$/;

/** Canonical spelling of a parsed number: no separators, no `+`, no leading or trailing zeros, no `-0`. */
function canonicalFromParts(sign: string, integer: string | undefined, decimals: string | undefined): string {
  let digits = (integer ?? '').replaceAll(',', '');
  let firstSignificant = 0;
  while (firstSignificant < digits.length - 1 && digits[firstSignificant] === '0') firstSignificant++;
  digits = digits.slice(firstSignificant) || '0';
  let fraction = decimals ?? '';
  let fractionEnd = fraction.length;
  while (fractionEnd > 0 && fraction[fractionEnd - 1] === '0') fractionEnd--;
  fraction = fraction.slice(0, fractionEnd);
  const magnitude = fraction === '' ? digits : `${digits}.${fraction}`;
  return sign !== '' && sign !== '+' && magnitude !== '0' ? `-${magnitude}` : magnitude;
}

/**
 * The canonical form of `text` when it is one number as last_number reads them ("1,234.50"
 * -> "1234.5", "+18.0" -> "18", "-0" -> "0", ".5" -> "0.5"); null otherwise. Works on the
 * digits as text, so long numbers keep every digit.
 */
export function canonicalNumber(text: string): string | null {
  const m = WHOLE_NUMBER.exec(text.trim());
  if (!m) return null;
  return canonicalFromParts(m[1]!, m[2], m[3] ?? m[4]);
}

function lastNumber(text: string): string {
  let last: string | null = null;
  for (const m of text.matchAll(NUMBER)) {
    const before = text[m.index - 1] ?? '';
    let sign = m[1]!;
    // A sign glued to a word or number is a hyphen or a subtraction ("1990-2000", "x-3").
    if (sign !== '' && /[\p{L}\p{N}_]/u.test(before)) sign = '';
    // ".3" right after digits is the tail of "1.2.3", not a number of its own.
    if (m[4] !== undefined && sign === '' && /\d/.test(before)) continue;
    last = canonicalFromParts(sign, m[2], m[3] ?? m[4]);
  }
  return last ?? '';
}

/**
 * The answer part of a (reasoning-stripped) response:
 *  - none: the whole text, trimmed
 *  - final_answer: the last of: `\boxed{X}` (balanced braces), `#### X` (GSM8K), "final answer: X" / "final answer is X",
 *    "the answer is X", "answer: X" (case-insensitive; X up to the end of line, trailing period trimmed);
 *    none found -> the last non-empty line. Also trimmed: markdown asterisks around X and a colon before it
 *    ("**Answer:** 42", "the answer is: 42"); any "answer is X" counts ("the correct answer is X"); a marker
 *    with nothing after it on its line takes the next non-empty line ("Final answer:\n42").
 *  - last_number: the last number in the text (sign, thousands separators `1,234`, decimals, fractions not needed),
 *    returned canonical: no separators, no leading `+`, no trailing zeros after a decimal point ("18.50" -> "18.5", "18.0" -> "18");
 *    none -> ''. Leading zeros go too ("007" -> "7"); a `-` right after a letter or digit is a hyphen, not a sign.
 *  - regex: the first capture group of the LAST match of `answerRegex` (RE2 via re2js), or the whole match when the
 *    pattern has no group; no match (or the group did not take part) -> ''. Throws a RangeError for a missing or
 *    refused pattern (see userRegexProblem).
 */
export function extractAnswer(text: string, mode: AnswerExtraction, answerRegex?: string): string {
  switch (mode) {
    case 'none':
      return text.trim();
    case 'final_answer': {
      const statements = answerStatements(text);
      for (let k = statements.length - 1; k >= 0; k--) {
        const answer = cleanAnswer(statements[k]!.text());
        if (answer !== '') return answer;
      }
      return lastNonEmptyLine(text);
    }
    case 'last_number':
      return lastNumber(text);
    case 'regex': {
      if (answerRegex === undefined) throw new RangeError('regex answer extraction needs an answerRegex');
      const regex = compileUserRegex(answerRegex);
      // test() runs RE2's DFA, much faster than the capturing search when nothing matches.
      if (!regex.test(text)) return '';
      let last: RegExpMatchArray | null = null;
      for (const m of regex.matchAll(text)) last = m;
      if (last === null) return '';
      return regex.groupCount() > 0 ? (last[1] ?? '') : last[0];
    }
  }
}

// --- Normalisation, exact match, F1 ------------------------------------------------------

/** Python's string.punctuation: the 32 ASCII punctuation characters. */
const ASCII_PUNCTUATION = /[!-/:-@[-`{-~]/g;
/** What Python's str.split() splits on (str.isspace()). */
const PYTHON_WHITESPACE = /[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/;
/**
 * Articles as whole words. Python 3's `\b` is Unicode-aware (a word character is a letter,
 * a number or `_`), JavaScript's is ASCII-only, hence the explicit lookarounds.
 */
const ARTICLES = /(?<![\p{L}\p{N}_])(?:a|an|the)(?![\p{L}\p{N}_])/gu;
const ARTICLES_ANY_CASE = /(?<![\p{L}\p{N}_])(?:a|an|the)(?![\p{L}\p{N}_])/giu;

/**
 * SQuAD v1.1 normalisation (evaluate-v1.1.py normalize_answer): lower-case, remove punctuation, remove the articles
 * a/an/the as whole words, collapse whitespace — each of the first two switchable by overrides (default both on);
 * `regexesToIgnore` matches are removed first (RE2).
 *
 * Punctuation is Python's string.punctuation (ASCII only) and whitespace is what Python's
 * str.split() splits on, so results equal the Python script's. With ignoreCase off the
 * articles are removed in any case ("The"), as the script only meets lower-case text.
 */
export function normaliseAnswer(text: string, overrides: ScoringOverrides = {}): string {
  let s = text;
  for (const pattern of overrides.regexesToIgnore ?? []) {
    const regex = compileUserRegex(pattern);
    if (regex.test(s)) s = regex.matcher(s).replaceAll('');
  }
  const ignoreCase = overrides.ignoreCase ?? true;
  if (ignoreCase) s = s.toLowerCase();
  if (overrides.ignorePunctuation ?? true) s = s.replace(ASCII_PUNCTUATION, '');
  s = s.replace(ignoreCase ? ARTICLES : ARTICLES_ANY_CASE, ' ');
  return s
    .split(PYTHON_WHITESPACE)
    .filter((token) => token !== '')
    .join(' ');
}

/** The accepted answers of a gold value as strings (a number -> String(n); a list -> each). */
export function acceptedAnswers(gold: Gold): string[] {
  if (typeof gold === 'object') return gold.map((answer) => String(answer));
  return [String(gold)];
}

/** 1 when the normalised prediction equals any normalised accepted answer, else 0 (also for an empty gold list). */
export function exactMatch(prediction: string, gold: Gold, overrides?: ScoringOverrides): 0 | 1 {
  const predicted = normaliseAnswer(prediction, overrides);
  return acceptedAnswers(gold).some((answer) => normaliseAnswer(answer, overrides) === predicted) ? 1 : 0;
}

/** SQuAD f1_score on token lists, with SQuAD v2's rule for empty lists. */
function tokenListF1(predicted: readonly string[], expected: readonly string[]): number {
  if (predicted.length === 0 || expected.length === 0) return predicted.length === expected.length ? 1 : 0;
  const remaining = new Map<string, number>();
  for (const token of expected) remaining.set(token, (remaining.get(token) ?? 0) + 1);
  let common = 0;
  for (const token of predicted) {
    const count = remaining.get(token) ?? 0;
    if (count > 0) {
      common += 1;
      remaining.set(token, count - 1);
    }
  }
  if (common === 0) return 0;
  // Same operations in the same order as the script, so the floats are identical.
  const precision = common / predicted.length;
  const recall = common / expected.length;
  return (2 * precision * recall) / (precision + recall);
}

/**
 * SQuAD token F1 of prediction vs each accepted answer (bag-of-tokens overlap, counts respected), the best one.
 * Both empty after normalisation -> 1; one empty -> 0. That is SQuAD v2's rule (evaluate-v2.0.py compute_f1):
 * v1.1 gives 0 for both empty, but an answer that normalises away ("The", "!") is correctly
 * answered by an equally empty prediction, as exact match already says. An empty gold list -> 0.
 */
export function tokenF1(prediction: string, gold: Gold, overrides?: ScoringOverrides): number {
  const predicted = tokens(normaliseAnswer(prediction, overrides));
  let best = 0;
  for (const answer of acceptedAnswers(gold)) {
    best = Math.max(best, tokenListF1(predicted, tokens(normaliseAnswer(answer, overrides))));
    if (best === 1) break;
  }
  return best;
}

/** Tokens of a normalised string (single spaces, no ends). */
function tokens(normalised: string): string[] {
  return normalised === '' ? [] : normalised.split(' ');
}

// --- Multiple choice ---------------------------------------------------------------------

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
/** How many answer statements choiceLetter looks at, from the last one back. */
const MAX_STATEMENTS_TRIED = 20;

/** The upper-case letter when it names one of `choiceCount` choices (A to Z only), else null. */
function letterInRange(letter: string, choiceCount: number): string | null {
  const index = LETTERS.indexOf(letter.toUpperCase());
  return index >= 0 && index < choiceCount ? LETTERS[index]! : null;
}

/** The letter of the first choice whose normalised text equals the normalised `text`; never matches empty text. */
function choiceWithText(text: string, choices: readonly string[]): string | null {
  const wanted = normaliseAnswer(text);
  if (wanted === '') return null;
  const index = choices.findIndex((choice) => normaliseAnswer(choice) === wanted);
  return index >= 0 && index < LETTERS.length ? LETTERS[index]! : null;
}

/** A response that is just a letter: "B", "b", "(B)", "B.", "B)", "B:", "**B**". */
const LONE_LETTER = /^\(?([A-Za-z])\)?[.):]?$/;
/** A response opening with a marked letter: "(B) Paris", "B. Paris", "B) Paris", "B: Paris". */
const OPENING_LETTER = /^(?:\(([A-Za-z])\)|([A-Z])[.):])(?:\s|$)/;
/**
 * A statement's answer that starts with a letter: "(b)", "b", "B.", "B because ...", "option C".
 * Lower case only where it cannot be a word: "answer: a dog" is not choice A.
 */
const STATEMENT_LETTER = /^(?:(?:[Oo]ption|[Cc]hoice|OPTION|CHOICE)\s+)?(?:\(([A-Za-z])\)|([A-Za-z])$|([A-Z])(?![\p{L}\p{N}_'’]))/u;

/** The letter an answer statement's text names, as a letter or as a choice's text. */
function statementChoice(raw: string, choices: readonly string[]): string | null {
  const answer = cleanAnswer(raw);
  if (answer === '') return null;
  const m = STATEMENT_LETTER.exec(answer);
  if (m) {
    const letter = letterInRange(m[1] ?? m[2] ?? m[3]!, choices.length);
    if (letter) return letter;
  }
  return choiceWithText(answer, choices);
}

/**
 * Multiple choice: the letter (A, B, ...) a response picks among `choices`, or null. Recognises a lone letter,
 * "(B)", "B.", "B)", "B:", "Answer: B", "The answer is (B)", and a response equal (normalised) to one choice's text,
 * a letter must be within range of the choices. Prefer the last explicit "answer" statement.
 *
 * In order: the answer statements of final_answer extraction (including `\boxed{B}`), from the
 * last back (at most 20), naming a letter or a choice's text; the whole response as a lone
 * letter; the whole response as a choice's text; the first line as a lone letter or an
 * opening "(B) ...", "B. ...", "B) ...", "B: ...". Lower-case letters count only where they
 * cannot be a word ("b", "(b)", "answer: b"). Only A to Z exist, so choices past the 26th
 * cannot be picked.
 */
export function choiceLetter(response: string, choices: readonly string[]): string | null {
  const text = response.trim();
  const statements = answerStatements(text);
  const oldest = Math.max(0, statements.length - MAX_STATEMENTS_TRIED);
  for (let k = statements.length - 1; k >= oldest; k--) {
    const letter = statementChoice(statements[k]!.text(), choices);
    if (letter) return letter;
  }
  const whole = cleanAnswer(text);
  const lone = LONE_LETTER.exec(whole);
  if (lone) return letterInRange(lone[1]!, choices.length);
  const byText = choiceWithText(whole, choices);
  if (byText) return byText;
  const firstLine = cleanAnswer(text.slice(0, lineEnd(text, 0)));
  const loneFirst = LONE_LETTER.exec(firstLine);
  if (loneFirst) return letterInRange(loneFirst[1]!, choices.length);
  const opening = OPENING_LETTER.exec(text);
  if (opening) return letterInRange(opening[1] ?? opening[2]!, choices.length);
  return null;
}

/**
 * The gold letter of a multiple-choice item: a number is a 0-based index; a single letter within range is itself;
 * otherwise the choice whose normalised text equals it; null when none. A list gold: the first that resolves.
 * A single letter is read in either case ("b" -> "B"); a string of digits is text, not an index.
 */
export function goldLetter(gold: Gold, choices: readonly string[]): string | null {
  if (typeof gold === 'object') {
    for (const answer of gold) {
      const letter = goldLetter(answer, choices);
      if (letter) return letter;
    }
    return null;
  }
  if (typeof gold === 'number') {
    return Number.isInteger(gold) && gold >= 0 && gold < Math.min(choices.length, LETTERS.length) ? LETTERS[gold]! : null;
  }
  const text = gold.trim();
  if (/^[A-Za-z]$/.test(text)) {
    const letter = letterInRange(text, choices.length);
    if (letter) return letter;
  }
  return choiceWithText(text, choices);
}

// --- One item ----------------------------------------------------------------------------

export interface ItemScoringRule {
  method: TextScoringMethod;
  taskType: TaskType;
  answerExtraction?: AnswerExtraction; // default 'none'
  answerRegex?: string;
  scoring?: ScoringOverrides;
}
export interface ScorableItem {
  gold: Gold;
  choices?: readonly string[];
}

/**
 * Scores one response (reasoning stripped first): multiple_choice reduces both sides to a letter
 * (score 1 when equal, both methods), otherwise extract then exact_match or token F1. With last_number extraction,
 * gold answers that are numbers are compared in the same canonical form. Returns the score in [0,1] and the extracted answer.
 *
 * Only the first MAX_SCORED_CHARS characters after stripping are scored. For multiple choice
 * the extraction, when not 'none', runs first and the letter is read from its result;
 * `extracted` is the letter ('' when none) and an unresolvable gold scores 0. A 'judge' task
 * is scored like 'qa'. With last_number, a numeric accepted answer matches only the same
 * canonical number (normalisation would drop the sign and the decimal point); other accepted
 * answers use the method as usual. Throws a RangeError for a multiple-choice item without
 * choices or a refused pattern.
 */
export function scoreResponse(rule: ItemScoringRule, item: ScorableItem, response: string): { score: number; extracted: string } {
  const text = capResponse(stripReasoning(response));
  const extraction = rule.answerExtraction ?? 'none';
  if (rule.taskType === 'multiple_choice') {
    const choices = item.choices ?? [];
    if (choices.length === 0) throw new RangeError('A multiple-choice item needs choices');
    const answer = extraction === 'none' ? text : extractAnswer(text, extraction, rule.answerRegex);
    const picked = choiceLetter(answer, choices);
    const expected = goldLetter(item.gold, choices);
    return { score: picked !== null && picked === expected ? 1 : 0, extracted: picked ?? '' };
  }
  const extracted = extractAnswer(text, extraction, rule.answerRegex);
  const compare = (answer: string) =>
    rule.method === 'exact_match' ? exactMatch(extracted, answer, rule.scoring) : tokenF1(extracted, answer, rule.scoring);
  let score = 0;
  for (const answer of acceptedAnswers(item.gold)) {
    const number = extraction === 'last_number' ? canonicalNumber(answer) : null;
    score = Math.max(score, number !== null ? (number === extracted ? 1 : 0) : compare(answer));
    if (score === 1) break;
  }
  return { score, extracted };
}

// --- Aggregates and standard errors ------------------------------------------------------

function checkFraction(score: number, what: string): void {
  if (!(Number.isFinite(score) && score >= 0 && score <= 1)) throw new RangeError(`${what} must be a fraction in [0, 1], got ${score}`);
}

/**
 * Aggregate of task scores (fractions) with weights: weighted_mean = sum(w*s)/sum(w), mean, min, max.
 * Throws on an empty list. Result is a fraction.
 * Also throws a RangeError for a score outside [0, 1], a negative or non-finite weight, or
 * (weighted_mean) weights summing to 0. Means are clamped into [min, max] of the scores so
 * rounding cannot leave that range.
 */
export function aggregateScores(tasks: readonly { score: number; weight: number }[], mode: Aggregation): number {
  if (tasks.length === 0) throw new RangeError('No task scores to aggregate');
  for (const { score, weight } of tasks) {
    checkFraction(score, 'A task score');
    if (!(Number.isFinite(weight) && weight >= 0)) throw new RangeError(`A task weight must be a finite number >= 0, got ${weight}`);
  }
  const scores = tasks.map((task) => task.score);
  const lowest = Math.min(...scores);
  const highest = Math.max(...scores);
  const clamp = (value: number) => Math.min(highest, Math.max(lowest, value));
  switch (mode) {
    case 'min':
      return lowest;
    case 'max':
      return highest;
    case 'mean':
      return clamp(scores.reduce((sum, score) => sum + score, 0) / scores.length);
    case 'weighted_mean': {
      const totalWeight = tasks.reduce((sum, task) => sum + task.weight, 0);
      if (totalWeight <= 0) throw new RangeError('Task weights sum to 0');
      return clamp(tasks.reduce((sum, task) => sum + task.weight * task.score, 0) / totalWeight);
    }
  }
}

/**
 * Standard error of a proportion-like score over n samples: sqrt(s(1-s)/n); null when n is not a positive integer.
 * Throws a RangeError for a score outside [0, 1].
 */
export function standardError(score: number, nSamples: number | null | undefined): number | null {
  if (typeof nSamples !== 'number' || !Number.isInteger(nSamples) || nSamples <= 0) return null;
  checkFraction(score, 'The score');
  return Math.sqrt((score * (1 - score)) / nSamples);
}

/**
 * Standard error of the mean of per-item scores: sample standard deviation / sqrt(n); null for n < 2.
 * Two passes over the scores shifted by the first one, so rounding stays small and equal
 * scores give exactly 0. Throws a RangeError for a non-finite score.
 */
export function standardErrorOfScores(scores: readonly number[]): number | null {
  const n = scores.length;
  if (n < 2) return null;
  for (const score of scores) if (!Number.isFinite(score)) throw new RangeError(`A score must be finite, got ${score}`);
  const shift = scores[0]!;
  const meanShifted = scores.reduce((sum, score) => sum + (score - shift), 0) / n;
  const squaredDeviations = scores.reduce((sum, score) => sum + (score - shift - meanShifted) ** 2, 0);
  return Math.sqrt(squaredDeviations / (n - 1)) / Math.sqrt(n);
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
