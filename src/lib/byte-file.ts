/**
 * Byte strings by small integer key, kept in a file of their own and read back with `pread`:
 * the operating system's page cache holds them, not this process (a million run documents are
 * some 1.5 GB, three times the app's whole memory budget), and a read is a system call of a few
 * microseconds that never yields to the event loop, where a Postgres round trip waits a turn
 * behind every other request in flight (issue 37: 15-21 ms at 32 connections).
 *
 * Values are appended; a key written again or deleted leaves its old bytes unused. Past
 * `capacity` bytes the file starts over empty (what it held is read again from the source).
 * The file is unlinked as soon as it is open, so it goes with the process however that ends.
 *
 * Reads and writes are synchronous by design: from the page cache they cost less than a turn
 * of the event loop. On a machine short of memory a read may wait for the disk; the cache in
 * memory (`ByteRing`) is the choice there.
 */
import { closeSync, ftruncateSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ByteRing, type KeyedBytes, ownCopyOf, type RingStorage } from './byte-ring.ts';

/** Values start at multiples of this, so a start fits 32 bits up to 32 GB of file. */
const ALIGN = 8;
const WRITE_BUFFER_MIN = 64 * 1024;
/** The bytes a value of this length takes in the file. */
const aligned = (length: number) => Math.ceil(length / ALIGN) * ALIGN;

/**
 * A new file in `directory`, open for reading and writing and already unlinked: it goes with
 * the process however that ends. Opened at once, so a directory that cannot take it fails the
 * app's start, not a page.
 */
function openUnlinkedFile(directory: string): number {
  const folder = mkdtempSync(join(directory, 'byte-file-'));
  try {
    return openSync(join(folder, 'values'), 'w+', 0o600);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

export class ByteFile implements KeyedBytes<number> {
  /** Null once closed. */
  private fd: number | null;
  /** Where each key's value starts (in units of ALIGN bytes) and its length; length 0: not held. */
  private starts = new Uint32Array(0);
  private lengths = new Uint32Array(0);
  /** Where the next value goes (bytes written since the file last started over). */
  private end = 0;
  private count = 0;
  private held = 0;
  /** Writes are packed into this (reused: it makes no garbage). */
  private writeBuffer = Buffer.allocUnsafeSlow(WRITE_BUFFER_MIN);
  private startedOver = 0;

  /**
   * @param capacity bytes the file may grow to before it starts over
   * @param directory where the file is made (it is unlinked at once)
   */
  constructor(
    readonly capacity: number,
    directory = tmpdir(),
  ) {
    this.fd = openUnlinkedFile(directory);
  }

  /** Times the file started over because it was full. */
  get restarts(): number {
    return this.startedOver;
  }

  get size(): number {
    return this.count;
  }

  get heldBytes(): number {
    return this.held;
  }

  /** Bytes of the file, held or not. */
  get fileBytes(): number {
    return this.end;
  }

  has(key: number): boolean {
    return key < this.lengths.length && this.lengths[key]! > 0;
  }

  get(key: number): Buffer | undefined {
    return ownCopyOf(this, key);
  }

  lengthOf(key: number): number {
    return this.fd !== null && this.has(key) ? this.lengths[key]! : 0;
  }

  /** Reads the value straight into `target` at `at` (one `pread`, no buffer between); the bytes read, 0 when it is not held. */
  readInto(key: number, target: Uint8Array, at: number): number {
    const length = this.lengthOf(key);
    if (length === 0) return 0;
    const read = readSync(this.fd!, target, at, length, this.starts[key]! * ALIGN);
    if (read !== length) throw new Error(`byte file: read ${read} of ${length} bytes`);
    return length;
  }

  /** Keeps the value (a string as its UTF-8 bytes); an empty one, or one larger than the file, is not kept. Says whether it was. */
  set(key: number, value: string | Uint8Array): boolean {
    return this.setMany([[key, value]]) === 1;
  }

  /**
   * Keeps these values in one write (the fill of a million documents: one system call per
   * batch, not per document); empty ones and ones larger than the file are not kept. Says how
   * many were.
   */
  setMany(entries: readonly (readonly [key: number, value: string | Uint8Array])[]): number {
    const sizes = entries.map(([key, value]) => {
      this.delete(key);
      const length = typeof value === 'string' ? Buffer.byteLength(value) : value.length;
      return length === 0 || length > this.capacity ? 0 : length;
    });
    // A batch larger than what is left starts the file over (one larger than the whole file is written in parts).
    let kept = 0;
    let from = 0;
    while (from < entries.length) {
      if (this.end + aligned(sizes[from]!) > this.capacity) this.startOver();
      let to = from;
      let bytes = 0;
      while (to < entries.length && this.end + bytes + aligned(sizes[to]!) <= this.capacity) {
        bytes += aligned(sizes[to]!);
        to += 1;
      }
      kept += this.append(entries, sizes, from, to, bytes);
      from = to;
    }
    return kept;
  }

  /**
   * Writes entries [from, to) (`bytes` in all, aligned) after the newest, in one write; a
   * failed write (a full disk) throws with none of them kept.
   */
  private append(
    entries: readonly (readonly [number, string | Uint8Array])[],
    sizes: readonly number[],
    from: number,
    to: number,
    bytes: number,
  ): number {
    if (this.fd === null) return 0;
    if (bytes > this.writeBuffer.length) this.writeBuffer = Buffer.allocUnsafeSlow(Math.max(bytes, this.writeBuffer.length * 2));
    let at = 0;
    for (let i = from; i < to; i += 1) {
      const [, value] = entries[i]!;
      if (typeof value === 'string') this.writeBuffer.write(value, at, sizes[i]!, 'utf8');
      else this.writeBuffer.set(value, at);
      at += aligned(sizes[i]!);
    }
    const written = bytes > 0 ? writeSync(this.fd, this.writeBuffer, 0, bytes, this.end) : 0;
    if (written !== bytes) throw new Error(`byte file: wrote ${written} of ${bytes} bytes`);
    at = 0;
    let kept = 0;
    for (let i = from; i < to; i += 1) {
      const length = sizes[i]!;
      const key = entries[i]![0];
      // A key given twice in one batch keeps its last value (an empty one: none).
      this.delete(key);
      if (length === 0) continue;
      this.ensureKey(key);
      this.starts[key] = (this.end + at) / ALIGN;
      this.lengths[key] = length;
      this.count += 1;
      this.held += length;
      kept += 1;
      at += aligned(length);
    }
    this.end += bytes;
    return kept;
  }

  /** Makes room for keys below `keys` at once (the arrays otherwise grow as keys arrive). */
  reserve(keys: number): void {
    if (keys > this.lengths.length) this.resize(keys);
  }

  delete(key: number): void {
    if (!this.has(key)) return;
    this.held -= this.lengths[key]!;
    this.lengths[key] = 0;
    this.count -= 1;
  }

  /** Forgets every value and gives the file's blocks back (the file stays open). */
  clear(): void {
    this.lengths.fill(0);
    this.count = 0;
    this.held = 0;
    this.end = 0;
    if (this.fd !== null) ftruncateSync(this.fd, 0);
  }

  /** Closes the file: nothing is kept from then on. */
  close(): void {
    this.clear();
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    this.starts = new Uint32Array(0);
    this.lengths = new Uint32Array(0);
  }

  private startOver(): void {
    this.clear();
    this.startedOver += 1;
  }

  /** Room for `key` in the arrays: grown an eighth past it, so keys arriving one by one copy them rarely. */
  private ensureKey(key: number): void {
    if (key >= this.lengths.length) this.resize(Math.max(Math.ceil((key + 1) * 1.125), 1024));
  }

  private resize(size: number): void {
    const starts = new Uint32Array(size);
    const lengths = new Uint32Array(size);
    starts.set(this.starts);
    lengths.set(this.lengths);
    this.starts = starts;
    this.lengths = lengths;
  }
}

/** A `ByteRing`'s bytes in a file of their own (see `openUnlinkedFile`), read and written with `pread` and `pwrite`. */
class FileRingStorage implements RingStorage {
  /** Null once closed. */
  private fd: number | null;

  constructor(directory: string) {
    this.fd = openUnlinkedFile(directory);
  }

  write(at: number, value: string | Uint8Array, length: number): void {
    const bytes = typeof value === 'string' ? Buffer.from(value) : value;
    if (this.fd === null) throw new Error('byte file: closed');
    const written = writeSync(this.fd, bytes, 0, length, at);
    if (written !== length) throw new Error(`byte file: wrote ${written} of ${length} bytes`);
  }

  readInto(at: number, length: number, target: Uint8Array, targetAt: number): void {
    if (this.fd === null) throw new Error('byte file: closed');
    const read = readSync(this.fd, target, targetAt, length, at);
    if (read !== length) throw new Error(`byte file: read ${read} of ${length} bytes`);
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}

/**
 * Byte strings in a file by ticket, for values with no small key of their own (the answer
 * cache's pages, by address): `keep` hands out a ticket that reads the value back until later
 * values have been written over it. The file is a ring (a `ByteRing` over it): each value is
 * written after the newest and the oldest go as the writes come round to them, a few at a
 * time, never all at once (a file that started over when full dropped every page it held, and
 * each was asked for and made again in a burst).
 */
export class BytesByTicket {
  private readonly storage: FileRingStorage;
  private readonly ring: ByteRing<number>;
  private issued = 0;

  /**
   * @param capacity bytes of the file
   * @param directory where the file is made (it is unlinked at once)
   * @param maxValues values held at most (then the oldest go): the tickets' places take memory
   */
  constructor(capacity: number, directory = tmpdir(), maxValues = 65_536) {
    this.storage = new FileRingStorage(directory);
    this.ring = new ByteRing(capacity, maxValues, this.storage);
  }

  /** Keeps the bytes; null when they could not be (empty, larger than the file, or a failed write). */
  keep(bytes: Uint8Array): number | null {
    if (bytes.length === 0) return null;
    const ticket = (this.issued += 1);
    try {
      return this.ring.set(ticket, bytes) ? ticket : null;
    } catch {
      // A full disk, or a closed file: the caller keeps the value otherwise.
      return null;
    }
  }

  has(ticket: number): boolean {
    return this.ring.has(ticket);
  }

  /** The ticket's bytes in a buffer of their own, or undefined once they are gone. */
  read(ticket: number): Buffer | undefined {
    return this.ring.get(ticket);
  }

  /** Reads the ticket's bytes into the start of `target` (one `pread`); the bytes read, 0 once they are gone. */
  readInto(ticket: number, target: Uint8Array): number {
    return this.ring.readInto(ticket, target, 0);
  }

  drop(ticket: number): void {
    this.ring.delete(ticket);
  }

  /** Values held, and the bytes they take. */
  get size(): number {
    return this.ring.size;
  }

  get heldBytes(): number {
    return this.ring.heldBytes;
  }

  close(): void {
    this.ring.clear();
    this.storage.close();
  }
}
