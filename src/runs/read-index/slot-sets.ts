/**
 * The sets of index slots a facet value holds: a sorted list while the value is rare (a
 * model, a hardware profile, a user), a bitset once it is common (a class, an engine),
 * so a rare value is walked in its own few slots and common ones are ANDed and counted a
 * word (32 slots) at a time. Both are kept exact as runs come and go.
 */

/** Slots in ascending order. */
export class SlotList {
  items: Int32Array;
  length = 0;

  constructor(capacity = 4) {
    this.items = new Int32Array(capacity);
  }

  private indexOf(slot: number): number {
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.items[mid]! < slot) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  add(slot: number): void {
    if (this.length === this.items.length) {
      const next = new Int32Array(Math.max(4, this.items.length * 2));
      next.set(this.items);
      this.items = next;
    }
    // New runs take new (the highest) slots: nearly every add is an append.
    if (this.length === 0 || this.items[this.length - 1]! < slot) {
      this.items[this.length++] = slot;
      return;
    }
    const at = this.indexOf(slot);
    if (this.items[at] === slot) return;
    this.items.copyWithin(at + 1, at, this.length);
    this.items[at] = slot;
    this.length += 1;
  }

  delete(slot: number): void {
    const at = this.indexOf(slot);
    if (at >= this.length || this.items[at] !== slot) return;
    this.items.copyWithin(at, at + 1, this.length);
    this.length -= 1;
  }
}

const popcount32 = (word: number) => {
  let v = word - ((word >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
};

export const wordsFor = (slots: number) => (slots + 31) >>> 5;
export const hasBit = (bits: Uint32Array, slot: number) => (bits[slot >>> 5]! & (1 << (slot & 31))) !== 0;
export const setBit = (bits: Uint32Array, slot: number) => {
  bits[slot >>> 5]! |= 1 << (slot & 31);
};
export const clearBit = (bits: Uint32Array, slot: number) => {
  bits[slot >>> 5]! &= ~(1 << (slot & 31));
};

export function countBits(bits: Uint32Array): number {
  let total = 0;
  for (let i = 0; i < bits.length; i += 1) if (bits[i] !== 0) total += popcount32(bits[i]!);
  return total;
}

/** Calls `visit` with each set slot in ascending order; stops when it returns false. */
export function forEachBit(bits: Uint32Array, visit: (slot: number) => boolean | void): void {
  for (let i = 0; i < bits.length; i += 1) {
    let word = bits[i]!;
    while (word !== 0) {
      const low = word & -word;
      if (visit((i << 5) + (31 - Math.clz32(low))) === false) return;
      word ^= low;
    }
  }
}

/** Sets bits [from, to). */
export function fillBits(bits: Uint32Array, from: number, to: number): void {
  for (let slot = from; slot < to && slot & 31; slot += 1) setBit(bits, slot);
  let slot = from & 31 ? (from | 31) + 1 : from;
  for (; slot + 32 <= to; slot += 32) bits[slot >>> 5] = 0xffffffff;
  for (; slot < to; slot += 1) setBit(bits, slot);
}

/** A copy of `bits` resized to `words` words. */
export function resized(bits: Uint32Array, words: number): Uint32Array {
  if (bits.length >= words) return bits;
  const next = new Uint32Array(words);
  next.set(bits);
  return next;
}
