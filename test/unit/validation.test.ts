import { expect } from 'chai';
import { z } from 'zod';
import { ValidationFailed } from '../../src/lib/errors.ts';
import { findNulCharacter, parseOrThrow, validationDetails } from '../../src/lib/validation.ts';

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
    expect(JSON.parse(JSON.stringify(details)).fieldErrors.__proto__).to.deep.equal(['Unknown field']);
  });

  it('puts whole-object issues in formErrors', () => {
    const refined = z.object({ a: z.number().optional() }).refine((v) => v.a !== undefined, 'Give a');
    expect(validationDetails(refined.safeParse({}).error!)).to.deep.equal({ fieldErrors: {}, formErrors: ['Give a'] });
  });

  it('parseOrThrow returns the parsed value or throws the 400 ValidationFailed', () => {
    expect(parseOrThrow(z.object({ n: z.coerce.number() }), { n: '3' })).to.deep.equal({ n: 3 });
    expect(() => parseOrThrow(z.object({ n: z.number() }), {})).to.throw(ValidationFailed).with.property('status', 400);
  });

  it('finds the path of a NUL character in nested strings and keys', () => {
    expect(findNulCharacter({ a: 'ok', b: [{ c: 'x\u0000y' }] })).to.equal('b.0.c');
    expect(findNulCharacter({ ['k\u0000']: 1 })).to.equal('k\u0000');
    expect(findNulCharacter({ a: 'fine', n: 1, t: true, z: null })).to.equal(undefined);
  });
});
