import type { z } from 'zod';
import { ValidationFailed, type ValidationDetails } from './errors.ts';

/**
 * The contract's validation shape: issues keyed by their dotted path
 * (`hardware.gpus.1.vramGb`); issues about the whole object go to `formErrors`,
 * and each unknown key becomes a field error of its own.
 */
export function validationDetails(error: z.ZodError, prefix?: string): ValidationDetails {
  // A Map, not an object literal: a path may be any user-given key, `__proto__` included.
  const fieldErrors = new Map<string, string[]>();
  const formErrors: string[] = [];
  const add = (path: string, message: string) => {
    const messages = fieldErrors.get(path);
    if (messages) messages.push(message);
    else fieldErrors.set(path, [message]);
  };
  for (const issue of error.issues) {
    const base = [...(prefix ? [prefix] : []), ...issue.path.map(String)].join('.');
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) add(base ? `${base}.${key}` : key, 'Unknown field');
    } else if (base) {
      add(base, issue.message);
    } else {
      formErrors.push(issue.message);
    }
  }
  return { fieldErrors: Object.fromEntries(fieldErrors), formErrors };
}

/**
 * How deeply a request body or query may nest (DECISIONS.md, "Limits"). A run submission
 * is three levels deep (`hardware.gpus.0`), so this leaves room without letting a body of
 * a few kilobytes be thousands of levels deep.
 */
export const MAX_INPUT_DEPTH = 64;

const [QUOTE, BACKSLASH, OPEN_BRACKET, CLOSE_BRACKET, OPEN_BRACE, CLOSE_BRACE] = [0x22, 0x5c, 0x5b, 0x5d, 0x7b, 0x7d];

/**
 * Whether raw UTF-8 JSON text opens more than `maxDepth` arrays or objects at once, read
 * before it is parsed: JSON.parse of a megabyte nested 500,000 deep costs the event loop
 * ten times what a flat one does. One pass over the bytes that skips string contents
 * (in UTF-8 no byte of a multi-byte character is ASCII, so quotes and brackets are exact).
 */
export function jsonNestsDeeperThan(utf8: Uint8Array, maxDepth = MAX_INPUT_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < utf8.length; i += 1) {
    const byte = utf8[i];
    if (inString) {
      if (byte === BACKSLASH) i += 1;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (byte === OPEN_BRACKET || byte === OPEN_BRACE) {
      depth += 1;
      if (depth > maxDepth) return true;
    } else if (byte === CLOSE_BRACKET || byte === CLOSE_BRACE) {
      depth -= 1;
    }
  }
  return false;
}

/** Why a piece of text cannot be stored: Postgres text holds no NUL, and jsonb no lone surrogate. */
export type TextProblem = 'nul' | 'notWellFormed';

/** What `findInputProblem` reports; `path` is dotted (`hardware.gpuName`), '' for the value itself. */
export type InputProblem = { kind: 'tooDeep'; maxDepth: number } | { kind: TextProblem; path: string };

/** What keeps `text` out of the database, if anything; each test is one native linear scan. */
export function textProblem(text: string): TextProblem | undefined {
  if (text.includes('\u0000')) return 'nul';
  if (!text.isWellFormed()) return 'notWellFormed';
  return undefined;
}

/** An object or array met on the walk, with the link back to where it sits. */
interface Container {
  value: object;
  depth: number;
  parent: Container | undefined;
  /** Its key (or index) in the parent, turned into text only for a path. */
  key: string | number;
}

/** The dotted path of `key` inside `container`, built only once something is wrong there. */
function pathOf(container: Container, key: string | number): string {
  const keys = [key];
  for (let node: Container | undefined = container; node.parent; node = node.parent) keys.push(node.key);
  return keys.reverse().join('.');
}

/**
 * The first reason a parsed body or query cannot be accepted: nesting deeper than
 * `maxDepth` (the value itself is level 1), or a key or string value holding a NUL
 * character or a lone surrogate. One iterative pass: each node is visited once with an
 * explicit stack (a 100,000-deep body must not overflow the call stack) and a path is
 * built only for the node at fault, so the cost stays linear in the size of the input.
 * Arrays are walked by index: `Object.keys` of an array of 8 million numbers would make
 * 8 million index strings first (seconds of the event loop for a 15 MB body).
 */
export function findInputProblem(value: unknown, maxDepth = MAX_INPUT_DEPTH): InputProblem | undefined {
  // Raw bytes (a storage upload) are not text.
  if (Buffer.isBuffer(value)) return undefined;
  if (typeof value === 'string') {
    const problem = textProblem(value);
    return problem && { kind: problem, path: '' };
  }
  if (value === null || typeof value !== 'object') return undefined;
  if (maxDepth < 1) return { kind: 'tooDeep', maxDepth };
  const stack: Container[] = [{ value, depth: 1, parent: undefined, key: '' }];
  /** The problem of one member (`key` already checked), or undefined; nested containers go on the stack. */
  const visit = (container: Container, key: string | number, child: unknown): InputProblem | undefined => {
    if (typeof child === 'string') {
      const problem = textProblem(child);
      return problem && { kind: problem, path: pathOf(container, key) };
    }
    if (child === null || typeof child !== 'object') return undefined;
    if (container.depth >= maxDepth) return { kind: 'tooDeep', maxDepth };
    stack.push({ value: child, depth: container.depth + 1, parent: container, key });
    return undefined;
  };
  for (let container = stack.pop(); container; container = stack.pop()) {
    if (Array.isArray(container.value)) {
      const array = container.value as unknown[];
      for (let index = 0; index < array.length; index += 1) {
        const problem = visit(container, index, array[index]);
        if (problem) return problem;
      }
      continue;
    }
    const object = container.value as Record<string, unknown>;
    // Object.keys, not Object.entries: no pair array per property, half the time on wide bodies.
    for (const key of Object.keys(object)) {
      const keyProblem = textProblem(key);
      if (keyProblem) return { kind: keyProblem, path: pathOf(container, key) };
      const problem = visit(container, key, object[key]);
      if (problem) return problem;
    }
  }
  return undefined;
}

/** Parses `input` or throws the contract's 400 validation error; `prefix` roots the paths. */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, prefix?: string): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw new ValidationFailed(validationDetails(result.error, prefix));
  return result.data;
}
