/**
 * Run ids (uuids) to index slots and back, off the JavaScript heap: each id as four
 * 32-bit words in one Uint32Array and an open-addressing hash table of slots in an
 * Int32Array. A million ids as strings in an array and a Map cost about 100 bytes each
 * and are marked by every major garbage collection; here they cost about 24 and are not.
 * An id keeps its slot for good (a removed run that comes back gets its slot again).
 */

/** A hex digit's value, or -1 (by character code). */
const HEX = new Int8Array(128).fill(-1);
for (let d = 0; d < 16; d += 1) {
  HEX['0123456789abcdef'.charCodeAt(d)] = d;
  HEX['0123456789ABCDEF'.charCodeAt(d)] = d;
}

/**
 * The 32 hex digits of a uuid (8-4-4-4-12) as four words, big-endian, so word order is
 * uuid order. Read digit by digit: a million ids at build time, no substrings made.
 */
function wordsOf(id: string): [number, number, number, number] {
  if (id.length !== 36) throw new Error(`not a uuid: ${id}`);
  const words: [number, number, number, number] = [0, 0, 0, 0];
  let digit = 0;
  for (let i = 0; i < 36; i += 1) {
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (id.charCodeAt(i) !== 45) throw new Error(`not a uuid: ${id}`);
      continue;
    }
    const code = id.charCodeAt(i);
    const value = code < 128 ? HEX[code]! : -1;
    if (value < 0) throw new Error(`not a uuid: ${id}`);
    const w = digit >>> 3;
    words[w] = ((words[w]! << 4) | value) >>> 0;
    digit += 1;
  }
  return words;
}

/** Lower-case hex digits by value, as character codes. */
const HEX_CODES = Uint8Array.from('0123456789abcdef', (digit) => digit.charCodeAt(0));
/** Characters in a uuid as Postgres writes it (8-4-4-4-12). */
const UUID_LENGTH = 36;
/**
 * Where ids are written before they become one string: reused (writing is synchronous), grown
 * when a longer array is asked for. One flat string per id or per array, not the ten small
 * strings that `toString(16)`, `padStart` and slices made per id.
 */
let scratch = Buffer.allocUnsafeSlow(64 * (UUID_LENGTH + 1));

export class IdTable {
  private words: Uint32Array = new Uint32Array(0);
  /** slot + 1 per bucket (0: empty); a power of two, at most half full. */
  private buckets: Int32Array = new Int32Array(1024);
  size = 0;

  private bucketOf(w0: number, w1: number, w2: number, w3: number): number {
    // Random (v4) and time-ordered (v7) uuids alike: mix every word.
    let h = Math.imul(w0 ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(w1, 0xc2b2ae35) ^ Math.imul(w2, 0x27d4eb2f) ^ w3;
    h ^= h >>> 15;
    h = Math.imul(h, 0x2c1b3c6d);
    h ^= h >>> 12;
    return h & (this.buckets.length - 1);
  }

  private find(w: readonly number[]): { bucket: number; slot: number } {
    const mask = this.buckets.length - 1;
    for (let bucket = this.bucketOf(w[0]!, w[1]!, w[2]!, w[3]!); ; bucket = (bucket + 1) & mask) {
      const entry = this.buckets[bucket]!;
      if (entry === 0) return { bucket, slot: -1 };
      const at = (entry - 1) * 4;
      if (this.words[at] === w[0] && this.words[at + 1] === w[1] && this.words[at + 2] === w[2] && this.words[at + 3] === w[3])
        return { bucket, slot: entry - 1 };
    }
  }

  /** The slot of an id, or -1. */
  slotOf(id: string): number {
    return this.find(wordsOf(id)).slot;
  }

  /** The id's slot, giving it `nextSlot` when it has none (the caller then owns that slot). */
  slotFor(id: string, nextSlot: number): number {
    const w = wordsOf(id);
    const { bucket, slot } = this.find(w);
    if (slot >= 0) return slot;
    if ((nextSlot + 1) * 4 > this.words.length) {
      const next = new Uint32Array(Math.max(4096, this.words.length * 2, (nextSlot + 1) * 4));
      next.set(this.words);
      this.words = next;
    }
    this.words.set(w, nextSlot * 4);
    this.size += 1;
    if (this.size * 2 > this.buckets.length) this.rehash();
    else this.buckets[bucket] = nextSlot + 1;
    return nextSlot;
  }

  private rehash(): void {
    const old = this.buckets;
    this.buckets = new Int32Array(old.length * 2);
    const mask = this.buckets.length - 1;
    for (let slot = 0; slot < this.size; slot += 1) {
      const at = slot * 4;
      let bucket = this.bucketOf(this.words[at]!, this.words[at + 1]!, this.words[at + 2]!, this.words[at + 3]!);
      while (this.buckets[bucket] !== 0) bucket = (bucket + 1) & mask;
      this.buckets[bucket] = slot + 1;
    }
  }

  /** The id of a slot, as Postgres writes a uuid. */
  idOf(slot: number): string {
    this.writeId(slot, scratch, 0);
    return scratch.toString('latin1', 0, UUID_LENGTH);
  }

  /**
   * The ids of these slots as one Postgres array literal (`{id,id}`), for a `$1::uuid[]`
   * parameter: one string for a page's documents, which the driver sends as it is.
   */
  arrayLiteral(slots: ArrayLike<number>): string {
    const length = 2 + Math.max(0, slots.length * (UUID_LENGTH + 1) - 1);
    if (scratch.length < length) scratch = Buffer.allocUnsafeSlow(length * 2);
    let at = 0;
    scratch[at++] = 123; // {
    for (let i = 0; i < slots.length; i += 1) {
      if (i > 0) scratch[at++] = 44; // ,
      this.writeId(slots[i]!, scratch, at);
      at += UUID_LENGTH;
    }
    scratch[at++] = 125; // }
    return scratch.toString('latin1', 0, at);
  }

  /** Writes a slot's id (36 characters, lower-case hex with its four dashes) into `out` at `at`. */
  private writeId(slot: number, out: Buffer, at: number): void {
    const w = this.words;
    const base = slot * 4;
    let pos = at;
    for (let digit = 0; digit < 32; digit += 1) {
      if (digit === 8 || digit === 12 || digit === 16 || digit === 20) out[pos++] = 45; // -
      out[pos++] = HEX_CODES[(w[base + (digit >>> 3)]! >>> (28 - 4 * (digit & 7))) & 15]!;
    }
  }

  /** Two slots' ids in the order Postgres sorts uuids (byte order). */
  compare(a: number, b: number): number {
    const w = this.words;
    for (let i = 0; i < 4; i += 1) {
      const x = w[a * 4 + i]!;
      const y = w[b * 4 + i]!;
      if (x !== y) return x < y ? -1 : 1;
    }
    return 0;
  }
}
