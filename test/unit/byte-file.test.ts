/**
 * The read index keeps every run document in a ByteFile (src/lib/byte-file.ts): values appended
 * to a file of its own and read back with pread. Checked against a plain Map of what was kept.
 * The answer cache keeps pages in one by ticket (BytesByTicket).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import fc from 'fast-check';
import { ByteFile, BytesByTicket } from '../../src/lib/byte-file.ts';
import { useTempDirectory } from '../helpers/temp-directory.ts';

describe('ByteFile: byte strings by key in a file of their own', () => {
  const directory = useTempDirectory('byte-file-test-');
  const make = (capacity: number) => directory.closeAfter(new ByteFile(capacity, directory.path()));

  it('gives back what was kept, strings as their UTF-8 bytes, and leaves no file behind', () => {
    const file = make(1024);
    expect(readdirSync(directory.path())).to.deep.equal([]);
    expect(file.set(3, '{"name":"Grüße ✓"}')).to.equal(true);
    expect(file.set(70_000, Buffer.from([1, 2, 3]))).to.equal(true);
    expect(file.get(3)!.toString()).to.equal('{"name":"Grüße ✓"}');
    expect([...file.get(70_000)!]).to.deep.equal([1, 2, 3]);
    expect(file.size).to.equal(2);
    expect(file.heldBytes).to.equal(Buffer.byteLength('{"name":"Grüße ✓"}') + 3);
    expect(file.get(4)).to.equal(undefined);
    expect(file.has(1_000_000)).to.equal(false);
  });

  it('reads a value straight into a buffer at a given place, and tells its length beforehand', () => {
    const file = make(1024);
    file.set(3, 'Grüße');
    file.set(5, 'ab');
    const page = Buffer.alloc(12, '.');
    expect([file.lengthOf(3), file.lengthOf(5), file.lengthOf(4)]).to.deep.equal([7, 2, 0]);
    expect(file.readInto(3, page, 2)).to.equal(7);
    expect(file.readInto(5, page, 9)).to.equal(2);
    expect(file.readInto(4, page, 0)).to.equal(0);
    expect(page.toString()).to.equal('..Grüßeab.');
    file.close();
    expect([file.lengthOf(3), file.readInto(3, page, 0)]).to.deep.equal([0, 0]);
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
    expect(() => new ByteFile(1024, join(directory.path(), 'missing'))).to.throw(/ENOENT/);
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

describe('BytesByTicket: byte strings by the ticket handed out when kept', () => {
  const directory = useTempDirectory('byte-ticket-test-');

  it('reads each value back by its ticket into a buffer of its own', () => {
    const store = new BytesByTicket(1024, directory.path());
    const first = store.keep(Buffer.from('first page'))!;
    const second = store.keep(Buffer.from('second page'))!;
    expect(first).to.not.equal(second);
    const [a, b] = [store.read(first)!, store.read(second)!];
    // Each read is its own buffer: reading another value does not change one read before.
    expect([a.toString(), b.toString()]).to.deep.equal(['first page', 'second page']);
    expect(a.buffer).to.not.equal(b.buffer);
    expect([store.size, store.heldBytes]).to.deep.equal([2, 21]);
    store.drop(first);
    expect([store.has(first), store.read(first), store.size]).to.deep.equal([false, undefined, 1]);
    store.close();
    expect(store.read(second)).to.equal(undefined);
  });

  it('answers no ticket once later values were written over it, nor past the count it holds', () => {
    const full = new BytesByTicket(64, directory.path());
    const old = full.keep(Buffer.alloc(40, 1))!;
    const newer = full.keep(Buffer.alloc(40, 2))!;
    expect(full.has(old), 'the newer value was written over it').to.equal(false);
    expect([...full.read(newer)!.subarray(0, 2)]).to.deep.equal([2, 2]);
    expect(full.keep(Buffer.alloc(100)), 'larger than the file').to.equal(null);
    expect(full.keep(Buffer.alloc(0)), 'empty').to.equal(null);
    full.close();

    const fewKeys = new BytesByTicket(1 << 20, directory.path(), 4);
    const tickets = Array.from({ length: 6 }, (_, i) => fewKeys.keep(Buffer.from(`value ${i}`))!);
    // Four values at most: the fifth and sixth pushed out the first two.
    expect(tickets.map((ticket) => fewKeys.read(ticket)?.toString() ?? null)).to.deep.equal([
      null,
      null,
      'value 2',
      'value 3',
      'value 4',
      'value 5',
    ]);
    fewKeys.close();
  });

  it('is a ring: a full file loses its oldest values as new ones come round to them, never all at once', () => {
    const ring = new BytesByTicket(100, directory.path());
    const value = (i: number) => Buffer.alloc(30, i);
    const tickets = [1, 2, 3].map((i) => ring.keep(value(i))!);
    // The fourth does not fit after the third: it goes at the start, over the first only.
    tickets.push(ring.keep(value(4))!);
    expect(tickets.map((ticket) => ring.has(ticket))).to.deep.equal([false, true, true, true]);
    for (const [i, ticket] of tickets.entries()) if (i > 0) expect(ring.read(ticket)!.equals(value(i + 1))).to.equal(true);
    // Dropping one gives back no room in the middle (values stay in write order), but it is gone.
    ring.drop(tickets[2]!);
    expect([ring.size, ring.heldBytes, ring.has(tickets[2]!)]).to.deep.equal([2, 60, false]);
    ring.close();
  });

  it('keeps nothing once closed, and says so rather than failing', () => {
    const store = new BytesByTicket(1024, directory.path());
    store.close();
    expect(store.keep(Buffer.from('late'))).to.equal(null);
  });
});
