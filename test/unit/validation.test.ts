import { expect } from 'chai';
import type { Request, Response } from 'express';
import fc from 'fast-check';
import { z } from 'zod';
import { ValidationFailed } from '../../src/lib/errors.ts';
import {
  findInputProblem,
  jsonNestsDeeperThan,
  MAX_INPUT_DEPTH,
  parseOrThrow,
  validationDetails,
  type InputProblem,
} from '../../src/lib/validation.ts';
import { rejectUnstorableInput } from '../../src/middleware/validate.ts';

describe('validation details', () => {
  const schema = z.strictObject({
    name: z.string().min(1, 'Name is required'),
    hardware: z.object({ gpus: z.array(z.object({ vramGb: z.number().positive('Must be positive') })) }),
  });

  it('keys field errors by their dotted path', () => {
    const result = schema.safeParse({ name: '', hardware: { gpus: [{ vramGb: 24 }, { vramGb: -1 }] } });
    expect(validationDetails(result.error!)).to.deep.equal({
      fieldErrors: { name: ['Name is required'], 'hardware.gpus.1.vramGb': ['Must be positive'] },
      formErrors: [],
    });
  });

  it('gives every unknown key its own field error, even keys named like Object built-ins', () => {
    const body = JSON.parse('{"name":"x","hardware":{"gpus":[]},"constructor":1,"__proto__":2,"toString":3}');
    const details = validationDetails(schema.safeParse(body).error!);
    expect(Object.keys(details.fieldErrors).sort()).to.deep.equal(['__proto__', 'constructor', 'toString']);
    expect(details.fieldErrors.constructor).to.deep.equal(['Unknown field']);
    // biome-ignore lint/suspicious/noProto: the own "__proto__" key that JSON.parse makes, which the test is about
    expect(JSON.parse(JSON.stringify(details)).fieldErrors.__proto__).to.deep.equal(['Unknown field']);
  });

  it('puts whole-object issues in formErrors', () => {
    const refined = z.object({ a: z.number().optional() }).refine((v) => v.a !== undefined, 'Give a');
    expect(validationDetails(refined.safeParse({}).error!)).to.deep.equal({ fieldErrors: {}, formErrors: ['Give a'] });
  });

  it('parseOrThrow returns the parsed value or throws the 400 ValidationFailed', () => {
    expect(parseOrThrow(z.object({ n: z.coerce.number() }), { n: '3' })).to.deep.equal({ n: 3 });
    expect(() => parseOrThrow(z.object({ n: z.number() }), {}))
      .to.throw(ValidationFailed)
      .with.property('status', 400);
  });
});

/** `levels` arrays nested in each other around `inner` (built in a loop: no recursion here either). */
function nested(levels: number, inner: unknown = 1): unknown {
  let value = inner;
  for (let i = 0; i < levels; i++) value = [value];
  return value;
}

describe('findInputProblem: the request input check', () => {
  it('finds the dotted path of a NUL character in nested strings and keys', () => {
    expect(findInputProblem({ a: 'ok', b: [{ c: 'x\u0000y' }] })).to.deep.equal({ kind: 'nul', path: 'b.0.c' });
    expect(findInputProblem({ 'k\u0000': 1 })).to.deep.equal({ kind: 'nul', path: 'k\u0000' });
    expect(findInputProblem('top\u0000')).to.deep.equal({ kind: 'nul', path: '' });
    expect(findInputProblem({ a: 'fine', n: 1, t: true, z: null })).to.equal(undefined);
  });

  it('finds lone surrogates in values and keys, and lets surrogate pairs through', () => {
    expect(findInputProblem({ hardware: { gpuName: 'RTX\ud800' } })).to.deep.equal({ kind: 'notWellFormed', path: 'hardware.gpuName' });
    expect(findInputProblem({ engineFlags: { commandSnippet: '\udc00llama' } })).to.deep.equal({
      kind: 'notWellFormed',
      path: 'engineFlags.commandSnippet',
    });
    // A low surrogate before its high one is not a pair.
    expect(findInputProblem({ list: ['ok', '\ude00\ud83d'] })).to.deep.equal({ kind: 'notWellFormed', path: 'list.1' });
    expect(findInputProblem({ 'key\udfff': 'x' })).to.deep.equal({ kind: 'notWellFormed', path: 'key\udfff' });
    expect(findInputProblem({ gpuName: 'RTX 😀 \ud83d\ude00', 'ключ 😀': 'ü' })).to.equal(undefined);
  });

  it(`accepts ${MAX_INPUT_DEPTH} levels of nesting and refuses ${MAX_INPUT_DEPTH + 1}, objects and arrays alike`, () => {
    expect(findInputProblem(nested(MAX_INPUT_DEPTH))).to.equal(undefined);
    expect(findInputProblem(nested(MAX_INPUT_DEPTH + 1))).to.deep.equal({ kind: 'tooDeep', maxDepth: MAX_INPUT_DEPTH });
    expect(findInputProblem({ a: nested(MAX_INPUT_DEPTH - 1) })).to.equal(undefined);
    expect(findInputProblem({ a: nested(MAX_INPUT_DEPTH - 2, { b: {} }) })).to.deep.equal({ kind: 'tooDeep', maxDepth: MAX_INPUT_DEPTH });
    // Scalars are not levels: a string at the bottom of 64 levels is fine.
    expect(findInputProblem(nested(MAX_INPUT_DEPTH, 'leaf'))).to.equal(undefined);
  });

  it('walks a 200,000-level structure without a RangeError, to its bottom when allowed', () => {
    const deep = nested(200_000, 'bottom\u0000');
    expect(findInputProblem(deep)).to.deep.equal({ kind: 'tooDeep', maxDepth: MAX_INPUT_DEPTH });
    // No depth limit: the walk reaches the bottom, so it must be iterative, not recursive.
    const problem = findInputProblem(deep, Infinity) as InputProblem & { path: string };
    expect(problem.kind).to.equal('nul');
    expect(problem.path).to.equal(Array(200_000).fill('0').join('.'));
    expect(findInputProblem(nested(200_000, 'clean'), Infinity)).to.equal(undefined);
  });

  describe('agrees with a plain recursive reading on generated JSON', () => {
    // Mostly harmless units, now and then a NUL or a surrogate half that may or may not
    // pair with its neighbour.
    const unit = fc.oneof(
      { arbitrary: fc.constantFrom('a', 'b', '.', ' '), weight: 12 },
      { arbitrary: fc.constantFrom('\u0000', '\ud83d', '\ude00', '\ud83d\ude00'), weight: 1 },
    );
    const badText = (text: string) =>
      text.includes('\u0000') || /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);

    /** Dotted paths of every bad key or string, the way a reader would list them by hand. */
    function badPaths(value: unknown, path: string[] = [], found: string[] = []): string[] {
      if (typeof value === 'string') {
        if (badText(value)) found.push(path.join('.'));
      } else if (value && typeof value === 'object') {
        for (const [key, child] of Object.entries(value)) {
          if (badText(key)) found.push([...path, key].join('.'));
          else badPaths(child, [...path, key], found);
        }
      }
      return found;
    }
    const depthOf = (value: unknown): number =>
      value && typeof value === 'object' ? 1 + Math.max(0, ...Object.values(value).map(depthOf)) : 0;

    it('finds bad text exactly when there is some, and names one of the bad places', () => {
      fc.assert(
        fc.property(fc.jsonValue({ stringUnit: unit, maxDepth: 6 }), (value) => {
          const problem = findInputProblem(value, Infinity);
          const expected = badPaths(value);
          if (expected.length === 0) expect(problem).to.equal(undefined);
          else expect(expected).to.include((problem as { path: string }).path);
        }),
        { numRuns: 500 },
      );
    });

    it('reports tooDeep exactly when the nesting is deeper than the limit', () => {
      fc.assert(
        fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 1, max: 8 }), (value, maxDepth) => {
          expect(findInputProblem(value, maxDepth)).to.deep.equal(depthOf(value) > maxDepth ? { kind: 'tooDeep', maxDepth } : undefined);
        }),
        { numRuns: 500 },
      );
    });

    it('reads the same depth from the raw UTF-8 text before parsing, brackets and quotes inside strings included', () => {
      const tricky = fc.oneof(fc.constantFrom('[', ']', '{', '}', '"', '\\', '\\"', 'é', '😀'), fc.string());
      fc.assert(
        fc.property(
          fc.jsonValue({ maxDepth: 8, stringUnit: fc.oneof(fc.constantFrom('[', '{', '"', '\\', ']'), fc.string({ maxLength: 1 })) }),
          fc.integer({ min: 1, max: 8 }),
          tricky,
          (value, maxDepth, key) => {
            for (const text of [JSON.stringify(value), JSON.stringify({ [key]: value }, null, 1)]) {
              const raw = Buffer.from(text, 'utf8');
              expect(jsonNestsDeeperThan(raw, maxDepth), text).to.equal(depthOf(JSON.parse(text)) > maxDepth);
            }
          },
        ),
        { numRuns: 500 },
      );
    });
  });
});

describe('jsonNestsDeeperThan: the raw-body depth check', () => {
  it(`passes ${MAX_INPUT_DEPTH} levels and refuses ${MAX_INPUT_DEPTH + 1}, and ignores brackets inside strings`, () => {
    const nested = (depth: number) => Buffer.from('['.repeat(depth) + ']'.repeat(depth));
    expect(jsonNestsDeeperThan(nested(MAX_INPUT_DEPTH))).to.equal(false);
    expect(jsonNestsDeeperThan(nested(MAX_INPUT_DEPTH + 1))).to.equal(true);
    expect(jsonNestsDeeperThan(Buffer.from(JSON.stringify({ text: `${'['.repeat(1000)}\\"{{{` })))).to.equal(false);
  });

  it('stops at the limit on a megabyte of brackets', () => {
    expect(jsonNestsDeeperThan(Buffer.alloc(1 << 20, '['))).to.equal(true);
  });
});

describe('rejectUnstorableInput: the middleware in front of every route', () => {
  // Node's HTTP parser and query parser never hand over a lone surrogate (invalid UTF-8
  // becomes a URIError or U+FFFD), so these requests are built by hand: the check must
  // hold whatever a future parser or proxy passes on.
  const check = (input: { path?: string; query?: unknown; body?: unknown }) => {
    const req = { path: '/api/leaderboard', query: {}, body: undefined, ...input } as unknown as Request;
    let passed = false;
    try {
      rejectUnstorableInput(req, {} as Response, () => (passed = true));
    } catch (error) {
      expect(error).to.be.instanceOf(ValidationFailed);
      return (error as ValidationFailed).details;
    }
    expect(passed, 'next() called').to.equal(true);
    return undefined;
  };

  it('names the query parameter or the path holding a lone surrogate, and passes well-formed ones on', () => {
    expect(check({ query: { hardwareName: 'RTX\ud800' } })).to.deep.equal({
      fieldErrors: { hardwareName: ['Must be well-formed Unicode (no lone surrogates)'] },
      formErrors: [],
    });
    expect(check({ path: '/api/models/org/x\udc00' })).to.deep.equal({
      fieldErrors: {},
      formErrors: ['path: Must be well-formed Unicode (no lone surrogates)'],
    });
    expect(check({ path: '/api/models/org/x%00' })).to.deep.equal({
      fieldErrors: {},
      formErrors: ['path: Must not contain NUL characters'],
    });
    // Surrogate pairs, percent-encoded or not, are well-formed.
    expect(check({ path: '/api/models/org/%F0%9F%98%80', query: { hardwareName: 'RTX 😀' }, body: { a: [1, 'b'] } })).to.equal(undefined);
  });
});
