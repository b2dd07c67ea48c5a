/**
 * A least-recently-used cache of byte buffers, bounded by their total size: what is added
 * past `maxBytes` pushes out the entries used longest ago; a value larger than `maxBytes`
 * is never kept. Map keeps insertion order, so a hit moves its entry to the end.
 */
export interface ByteCache {
  get(key: string): Buffer | undefined;
  set(key: string, value: Buffer): void;
  delete(key: string): void;
  /** Bytes held now. */
  readonly size: number;
}

export function createByteCache(maxBytes: number): ByteCache {
  const entries = new Map<string, Buffer>();
  let size = 0;

  function remove(key: string): void {
    const value = entries.get(key);
    if (!value) return;
    entries.delete(key);
    size -= value.length;
  }

  return {
    get(key) {
      const value = entries.get(key);
      if (value) {
        entries.delete(key);
        entries.set(key, value);
      }
      return value;
    },
    set(key, value) {
      remove(key);
      if (value.length > maxBytes) return;
      for (const [oldest] of entries) {
        if (size + value.length <= maxBytes) break;
        remove(oldest);
      }
      entries.set(key, value);
      size += value.length;
    },
    delete: remove,
    get size() {
      return size;
    },
  };
}
