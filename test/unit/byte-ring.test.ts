/**
 * The read index's document cache is a ByteRing (src/lib/byte-ring.ts): values written in turn
 * into one buffer, the oldest written over first. Checked against a plain model of that rule.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { ByteRing } from '../../src/lib/byte-ring.ts';

describe('ByteRing: a first-in-first-out store of bytes in one buffer', () => {
  it('gives back what was kept, strings as their UTF-8 bytes', () => {
    const ring = new ByteRing<string>(64);
    expect(ring.set('a', '{"name":"Grüße ✓"}')).to.equal(true);
    expect(ring.set('b', Buffer.from([1, 2, 3]))).to.equal(true);
    expect(ring.get('a')!.toString()).to.equal('{"name":"Grüße ✓"}');
    expect([...ring.get('b')!]).to.deep.equal([1, 2, 3]);
    expect(ring.heldBytes).to.equal(Buffer.byteLength('{"name":"Grüße ✓"}') + 3);
    expect(ring.get('c')).to.equal(undefined);
  });

  it('writes over the oldest when full, and never splits a value across the end', () => {
    const ring = new ByteRing<number>(10);
    ring.set(1, 'aaaa');
    ring.set(2, 'bbbb');
    // Six bytes are not free at the end (two are): it starts over at the front, over 1 (and 2, which it reaches).
    ring.set(3, 'cccccc');
    expect(ring.has(1)).to.equal(false);
    expect(ring.has(2)).to.equal(false);
    expect(ring.get(3)!.toString()).to.equal('cccccc');
    ring.set(4, 'dddd');
    expect(ring.get(3)!.toString()).to.equal('cccccc');
    expect(ring.get(4)!.toString()).to.equal('dddd');
  });

  it('keeps at most the count it is given, and nothing larger than itself', () => {
    const ring = new ByteRing<number>(1000, 2);
    ring.set(1, 'a');
    ring.set(2, 'b');
    ring.set(3, 'c');
    expect([ring.has(1), ring.has(2), ring.has(3)]).to.deep.equal([false, true, true]);
    expect(ring.set(4, 'x'.repeat(1001))).to.equal(false);
    expect(ring.has(4)).to.equal(false);
    expect(new ByteRing<number>(1000, 0).set(1, 'a')).to.equal(false);
  });

  it('forgets what is deleted or cleared, and a value written again counts as the newest', () => {
    const ring = new ByteRing<string>(12);
    ring.set('a', 'aaaa');
    ring.set('b', 'bbbb');
    ring.set('a', 'AAAA');
    ring.delete('b');
    expect(ring.size).to.equal(1);
    // 'a' was written last: the next write goes over the space 'b' left, then the first 'a''s.
    ring.set('c', 'cccc');
    expect(ring.get('a')!.toString()).to.equal('AAAA');
    ring.clear();
    expect([ring.size, ring.heldBytes, ring.has('a')]).to.deep.equal([0, 0, false]);
    ring.set('d', 'dddd');
    expect(ring.get('d')!.toString()).to.equal('dddd');
  });

  it('holds exactly what the rule says after any sequence of writes and deletes', () => {
    const operation = fc.oneof(
      fc.record({ op: fc.constant('set' as const), key: fc.integer({ min: 0, max: 12 }), length: fc.integer({ min: 0, max: 40 }) }),
      fc.record({ op: fc.constant('delete' as const), key: fc.integer({ min: 0, max: 12 }) }),
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 64 }),
        fc.integer({ min: 1, max: 8 }),
        fc.array(operation, { maxLength: 80 }),
        (capacity, maxEntries, ops) => {
          const ring = new ByteRing<number>(capacity, maxEntries);
          // The model: each value with where it was written, counting every byte written or skipped.
          const model = new Map<number, { at: number; value: string }>();
          let head = 0;
          ops.forEach((operation, step) => {
            if (operation.op === 'delete') {
              ring.delete(operation.key);
              model.delete(operation.key);
              return;
            }
            const value = String.fromCharCode(97 + (step % 26)).repeat(operation.length);
            const kept = ring.set(operation.key, value);
            model.delete(operation.key);
            expect(kept).to.equal(value.length <= capacity);
            if (!kept) return;
            let at = head;
            if ((at % capacity) + value.length > capacity) at += capacity - (at % capacity);
            const end = at + value.length;
            for (const [key, entry] of [...model].sort((x, y) => x[1].at - y[1].at))
              if (entry.at < end - capacity || model.size >= maxEntries) model.delete(key);
              else break;
            model.set(operation.key, { at, value });
            head = end;
          });
          expect(ring.size).to.equal(model.size);
          for (let key = 0; key <= 12; key += 1) {
            expect(ring.get(key)?.toString(), `key ${key}`).to.equal(model.get(key)?.value);
            // Read into a page at an offset: the same bytes, and the length the store says.
            const into = Buffer.alloc(64, '.');
            const length = ring.readInto(key, into, 3);
            expect(length)
              .to.equal(ring.lengthOf(key))
              .and.to.equal(model.get(key)?.value.length ?? 0);
            expect(into.subarray(3, 3 + length).toString()).to.equal(model.get(key)?.value ?? '');
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
