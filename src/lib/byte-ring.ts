/**
 * A first-in-first-out store of byte strings in one buffer allocated once (or in a file, see
 * `RingStorage`): a value is written after the newest and pushes out the oldest it overwrites.
 * Nothing it keeps is a JavaScript string or a buffer of its own, so keeping and dropping
 * values makes no garbage for the collector: a cache of run documents held as strings
 * (promoted to the old generation, then dropped) and as buffers (external memory counted
 * against the old generation until a full collection) each kept V8 marking the whole heap
 * several times a second under a filter mix.
 */
/** A store of byte strings by key: the read index keeps run documents in one (in memory or in a file). */
export interface KeyedBytes<K> {
  /** Values held. */
  readonly size: number;
  /** Bytes of the values held. */
  readonly heldBytes: number;
  has(key: K): boolean;
  /** The value's bytes in a buffer of their own, or undefined (reads on the hot path use `readInto`). */
  get(key: K): Buffer | undefined;
  /** The value's length in bytes; 0 when it is not held. */
  lengthOf(key: K): number;
  /** Copies the value into `target` at `at`; the bytes copied, 0 when it is not held. */
  readInto(key: K, target: Uint8Array, at: number): number;
  /** Keeps the value (a string as its UTF-8 bytes); says whether it was kept. */
  set(key: K, value: string | Uint8Array): boolean;
  delete(key: K): void;
  clear(): void;
}

/** Where a ring's bytes are: places are offsets below the ring's capacity, and a value never straddles its end. */
/** `get` of a store, through its `lengthOf` and `readInto`: one for both kinds of store. */
export function ownCopyOf<K>(store: KeyedBytes<K>, key: K): Buffer | undefined {
  if (!store.has(key)) return undefined;
  const bytes = Buffer.allocUnsafeSlow(store.lengthOf(key));
  store.readInto(key, bytes, 0);
  return bytes;
}

export interface RingStorage {
  /** Writes the value's `length` bytes (a string's UTF-8) at `at`; throws when it cannot (a full disk, a closed file). */
  write(at: number, value: string | Uint8Array, length: number): void;
  /** Copies `length` bytes from `at` into `target` at `targetAt`. */
  readInto(at: number, length: number, target: Uint8Array, targetAt: number): void;
}

/** A ring's bytes in one buffer of the process's memory, allocated on the first write. */
function memoryStorage(capacity: number): RingStorage {
  let bytes: Buffer | null = null;
  const buffer = () => (bytes ??= Buffer.allocUnsafeSlow(capacity));
  return {
    write(at, value, length) {
      if (typeof value === 'string') buffer().write(value, at, length, 'utf8');
      else buffer().set(value, at);
    },
    readInto(at, length, target, targetAt) {
      target.set(buffer().subarray(at, at + length), targetAt);
    },
  };
}

export class ByteRing<K> implements KeyedBytes<K> {
  /** Where each value starts, counted in bytes written since the ring was made (it never wraps), and its length. */
  private readonly entries = new Map<K, { at: number; length: number }>();
  /**
   * The keys in the order written (with where each was written: a key written again or deleted
   * leaves a stale place here, skipped). Eviction reads this, not the Map: a Map iterator
   * restarted per eviction walks past every entry deleted before it until V8 rehashes.
   */
  private orderKeys: K[] = [];
  private orderAt: number[] = [];
  private oldest = 0;
  /** Where the next value goes, in the same count. */
  private head = 0;
  private held = 0;

  /**
   * @param capacity bytes of the one buffer (allocated on the first `set`), or of the storage given
   * @param maxEntries values kept at most (then the oldest go)
   */
  constructor(
    readonly capacity: number,
    private readonly maxEntries = Number.POSITIVE_INFINITY,
    private readonly storage: RingStorage = memoryStorage(capacity),
  ) {}

  /** Values held. */
  get size(): number {
    return this.entries.size;
  }

  /** Bytes of the values held. */
  get heldBytes(): number {
    return this.held;
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  get(key: K): Buffer | undefined {
    return ownCopyOf(this, key);
  }

  lengthOf(key: K): number {
    return this.entries.get(key)?.length ?? 0;
  }

  readInto(key: K, target: Uint8Array, at: number): number {
    const entry = this.entries.get(key);
    if (!entry) return 0;
    this.storage.readInto(entry.at % this.capacity, entry.length, target, at);
    return entry.length;
  }

  /** Keeps the value (a string is kept as its UTF-8 bytes); one larger than the ring is not kept. Says whether it was. */
  set(key: K, value: string | Uint8Array): boolean {
    this.delete(key);
    const length = typeof value === 'string' ? Buffer.byteLength(value) : value.length;
    if (length > this.capacity || this.maxEntries < 1) return false;
    // A value never straddles the end: one that would starts at the next lap, and the bytes skipped stay unused.
    let at = this.head;
    if ((at % this.capacity) + length > this.capacity) at += this.capacity - (at % this.capacity);
    const end = at + length;
    // The oldest go first: every one the write reaches, and one more while the count is full.
    while (this.oldest < this.orderKeys.length) {
      const oldestKey = this.orderKeys[this.oldest]!;
      const entry = this.entries.get(oldestKey);
      const live = entry?.at === this.orderAt[this.oldest];
      if (live && entry.at >= end - this.capacity && this.entries.size < this.maxEntries) break;
      this.oldest += 1;
      if (!live) continue;
      this.entries.delete(oldestKey);
      this.held -= entry.length;
    }
    if (this.oldest > 1024 && this.oldest * 2 > this.orderKeys.length) {
      this.orderKeys = this.orderKeys.slice(this.oldest);
      this.orderAt = this.orderAt.slice(this.oldest);
      this.oldest = 0;
    }
    // Written before it is recorded: a write that fails (a full disk) keeps nothing of it.
    this.storage.write(at % this.capacity, value, length);
    this.entries.set(key, { at, length });
    this.orderKeys.push(key);
    this.orderAt.push(at);
    this.held += length;
    this.head = end;
    return true;
  }

  delete(key: K): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.held -= entry.length;
  }

  /** Forgets every value (the buffer stays, to be written over). */
  clear(): void {
    this.entries.clear();
    this.orderKeys = [];
    this.orderAt = [];
    this.oldest = 0;
    this.held = 0;
  }
}
