/**
 * A least-recently-used cache of byte buffers (or of values carrying them, measured by
 * `sizeOf`), bounded by their total size: what is added past `maxBytes` pushes out the
 * entries used longest ago; a value larger than `maxBytes` is never kept. Map keeps
 * insertion order, so a hit moves its entry to the end.
 */
export interface ByteCache<V = Buffer> {
  /** The value kept under `key`; `touch: false` reads it without counting it as used. */
  get(key: string, options?: { touch?: boolean }): V | undefined;
  set(key: string, value: V): void;
  delete(key: string): void;
  /** Bytes held now. */
  readonly size: number;
}

export function createByteCache(maxBytes: number): ByteCache;
export function createByteCache<V>(maxBytes: number, sizeOf: (value: V) => number): ByteCache<V>;
export function createByteCache<V>(maxBytes: number, sizeOf = (value: V) => (value as Buffer).length): ByteCache<V> {
  const entries = new Map<string, V>();
  let size = 0;

  function remove(key: string): void {
    const value = entries.get(key);
    if (!value) return;
    entries.delete(key);
    size -= sizeOf(value);
  }

  return {
    get(key, { touch = true } = {}) {
      const value = entries.get(key);
      if (value && touch) {
        entries.delete(key);
        entries.set(key, value);
      }
      return value;
    },
    set(key, value) {
      remove(key);
      const bytes = sizeOf(value);
      if (bytes > maxBytes) return;
      for (const [oldest] of entries) {
        if (size + bytes <= maxBytes) break;
        remove(oldest);
      }
      entries.set(key, value);
      size += bytes;
    },
    delete: remove,
    get size() {
      return size;
    },
  };
}

/**
 * Bytes to keep, in a memory block of their own: a cache counts a buffer's length, which is
 * not what a view holds. zlib's synchronous calls return an output that fits one chunk as a
 * view of its 16 KB chunk, and a short `Buffer.from` is a view of Node's shared 8 KB pool: a
 * 1 KB model search answer kept as zlib gave it held 16 KB, and the answer cache's memory grew
 * far past its budget (23 MB more RSS in the bench's results list, whose answers compress to 7 KB).
 */
export function ownBytes(bytes: Buffer): Buffer {
  if (bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.length) return bytes;
  const own = Buffer.allocUnsafeSlow(bytes.length);
  bytes.copy(own);
  return own;
}
