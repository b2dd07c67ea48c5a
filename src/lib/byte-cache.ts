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
