/**
 * The byte cache (src/lib/byte-cache.ts): bounded by the bytes it counts, and `ownBytes`, which
 * makes what it counts what it holds.
 */
import { expect } from 'chai';
import { brotliCompressSync } from 'node:zlib';
import { createByteCache, ownBytes } from '../../src/lib/byte-cache.ts';

describe('byte cache', () => {
  it('pushes out what was used longest ago once its bytes pass the bound, and never keeps a value larger than the bound', () => {
    const cache = createByteCache(10);
    cache.set('a', Buffer.alloc(4));
    cache.set('b', Buffer.alloc(4));
    expect(cache.get('a')).to.have.length(4); // a is now the most recently used
    cache.set('c', Buffer.alloc(4));
    expect(cache.get('b')).to.equal(undefined);
    expect(cache.get('a')).to.have.length(4);
    expect(cache.size).to.equal(8);
    cache.set('huge', Buffer.alloc(11));
    expect(cache.get('huge')).to.equal(undefined);
    expect(cache.size).to.equal(8);
  });

  describe('ownBytes', () => {
    it('copies a view into a block of its own size, with the same bytes', () => {
      // A short compressed output is a view of zlib's 16 KB chunk; a short Buffer.from one of the shared pool.
      for (const view of [
        brotliCompressSync(Buffer.from('{"rows":[]}'.repeat(50))),
        Buffer.from('a short text'),
        Buffer.alloc(100).subarray(10, 20),
      ]) {
        expect(view.buffer.byteLength, 'a view of a larger block').to.be.above(view.length);
        const own = ownBytes(view);
        expect(own.equals(view)).to.equal(true);
        expect(own.buffer.byteLength).to.equal(own.length);
        expect(own.byteOffset).to.equal(0);
      }
    });

    it('keeps a buffer that already owns its block as it is', () => {
      const whole = Buffer.allocUnsafeSlow(64).fill(7);
      expect(ownBytes(whole)).to.equal(whole);
    });
  });
});
