/**
 * The read index keeps every run document in a ByteFile (src/lib/byte-file.ts): values appended
 * to a file of its own and read back with pread. Checked against a plain Map of what was kept.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import fc from 'fast-check';
import { ByteFile } from '../../src/lib/byte-file.ts';

describe('ByteFile: byte strings by key in a file of their own', () => {
  let directory: string;
  const files: ByteFile[] = [];
  const make = (capacity: number) => {
    const file = new ByteFile(capacity, directory);
    files.push(file);
    return file;
  };

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'byte-file-test-'));
  });
  afterEach(() => {
    for (const file of files.splice(0)) file.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('gives back what was kept, strings as their UTF-8 bytes, and leaves no file behind', () => {
    const file = make(1024);
    expect(readdirSync(directory)).to.deep.equal([]);
    expect(file.set(3, '{"name":"Grüße ✓"}')).to.equal(true);
    expect(file.set(70_000, Buffer.from([1, 2, 3]))).to.equal(true);
    expect(file.get(3)!.toString()).to.equal('{"name":"Grüße ✓"}');
    expect([...file.get(70_000)!]).to.deep.equal([1, 2, 3]);
    expect(file.size).to.equal(2);
    expect(file.heldBytes).to.equal(Buffer.byteLength('{"name":"Grüße ✓"}') + 3);
    expect(file.get(4)).to.equal(undefined);
    expect(file.has(1_000_000)).to.equal(false);
  });

  it('writes a batch in one go, the last value of a key given twice winning', () => {
    const file = make(1024);
    expect(
      file.setMany([
        [0, 'a'],
        [1, ''],
        [2, 'ccc'],
        [0, 'aa'],
      ]),
    ).to.equal(3);
    expect(file.get(0)!.toString()).to.equal('aa');
    expect(file.has(1)).to.equal(false);
    expect(file.get(2)!.toString()).to.equal('ccc');
    expect(file.size).to.equal(2);
    expect(file.heldBytes).to.equal(5);
  });

  it('forgets deleted and replaced values, and everything on clear', () => {
    const file = make(1024);
    file.set(1, 'one');
    file.set(2, 'two');
    file.set(1, 'uno');
    file.delete(2);
    file.delete(9);
    expect(file.get(1)!.toString()).to.equal('uno');
    expect(file.has(2)).to.equal(false);
    expect(file.size).to.equal(1);
    file.clear();
    expect(file.size).to.equal(0);
    expect(file.heldBytes).to.equal(0);
    expect(file.fileBytes).to.equal(0);
    expect(file.has(1)).to.equal(false);
    file.set(1, 'again');
    expect(file.get(1)!.toString()).to.equal('again');
  });

  it('starts over empty when full, and keeps nothing larger than itself', () => {
    // Values start at multiples of 8 bytes: three of 10 bytes take 48 of 50.
    const file = make(50);
    for (const key of [1, 2, 3]) file.set(key, String(key).repeat(10));
    expect(file.restarts).to.equal(0);
    expect(file.fileBytes).to.equal(48);
    file.set(4, 'four');
    expect(file.restarts).to.equal(1);
    expect([1, 2, 3].map((key) => file.has(key))).to.deep.equal([false, false, false]);
    expect(file.get(4)!.toString()).to.equal('four');
    expect(file.set(5, 'x'.repeat(51))).to.equal(false);
    expect(file.has(5)).to.equal(false);
    // A batch larger than what is left goes in parts: the file starts over between them.
    expect(
      file.setMany([
        [6, 'a'.repeat(20)],
        [7, 'b'.repeat(20)],
        [8, 'c'.repeat(20)],
      ]),
    ).to.equal(3);
    expect(file.restarts).to.equal(2);
    expect(file.get(8)!.toString()).to.equal('c'.repeat(20));
  });

  it('keeps nothing once closed', () => {
    const file = make(1024);
    file.set(1, 'one');
    file.close();
    expect(file.has(1)).to.equal(false);
    expect(file.set(1, 'one')).to.equal(false);
    expect(file.get(1)).to.equal(undefined);
  });

  it('fails at once in a directory it cannot write', () => {
    expect(() => new ByteFile(1024, join(directory, 'missing'))).to.throw(/ENOENT/);
  });

  it('answers what a Map of the kept values answers, whatever the order of writes, deletes and batches', () => {
    const key = fc.integer({ min: 0, max: 3000 });
    const value = fc.string({ minLength: 0, maxLength: 40, unit: 'grapheme' });
    const step = fc.oneof(
      fc.record({ op: fc.constant('set' as const), key, value }),
      fc.record({ op: fc.constant('delete' as const), key }),
      fc.record({ op: fc.constant('batch' as const), entries: fc.array(fc.tuple(key, value), { maxLength: 6 }) }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        // Roomy: it never starts over, so it must hold exactly what the Map holds.
        const file = make(1 << 20);
        const model = new Map<number, string>();
        const keep = (k: number, v: string) => (v === '' ? model.delete(k) : model.set(k, v));
        for (const s of steps) {
          if (s.op === 'set') {
            file.set(s.key, s.value);
            keep(s.key, s.value);
          } else if (s.op === 'delete') {
            file.delete(s.key);
            model.delete(s.key);
          } else {
            file.setMany(s.entries);
            for (const [k] of s.entries) model.delete(k);
            for (const [k, v] of s.entries) keep(k, v);
          }
        }
        expect(file.size).to.equal(model.size);
        expect(file.heldBytes).to.equal([...model.values()].reduce((sum, v) => sum + Buffer.byteLength(v), 0));
        for (const [k, v] of model) expect(file.get(k)!.toString()).to.equal(v);
        for (let k = 0; k <= 3000; k += 97) if (!model.has(k)) expect(file.has(k)).to.equal(false);
        file.close();
      }),
      { numRuns: 200 },
    );
  });
});
