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
import type { KeyedBytes } from './byte-ring.ts';

/** Values start at multiples of this, so a start fits 32 bits up to 32 GB of file. */
const ALIGN = 8;
const SCRATCH_MIN = 64 * 1024;
/** The bytes a value of this length takes in the file. */
const aligned = (length: number) => Math.ceil(length / ALIGN) * ALIGN;

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
  /** `get` reads into this, and writes are packed into the other (each reused: they make no garbage). */
  private scratch = Buffer.allocUnsafeSlow(SCRATCH_MIN);
  private writeBuffer = Buffer.allocUnsafeSlow(SCRATCH_MIN);
  private startedOver = 0;

  /**
   * @param capacity bytes the file may grow to before it starts over
   * @param directory where the file is made (it is unlinked at once)
   */
  constructor(
    readonly capacity: number,
    directory = tmpdir(),
  ) {
    // Opened at once, so a directory that cannot take it fails the app's start, not a page.
    const folder = mkdtempSync(join(directory, 'byte-file-'));
    const path = join(folder, 'values');
    try {
      this.fd = openSync(path, 'w+', 0o600);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
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

  /** The value's bytes as a view into a buffer reused by the next `get`, or undefined. */
  get(key: number): Buffer | undefined {
    const length = this.lengthOf(key);
    if (length === 0) return undefined;
    if (length > this.scratch.length) this.scratch = Buffer.allocUnsafeSlow(Math.max(length, this.scratch.length * 2));
    return this.scratch.subarray(0, this.readInto(key, this.scratch, 0));
  }

  /** The value's bytes in a buffer of their own (to send, or to keep past the next `get`), or undefined. */
  copyOf(key: number): Buffer | undefined {
    const length = this.lengthOf(key);
    if (length === 0) return undefined;
    const bytes = Buffer.allocUnsafeSlow(length);
    this.readInto(key, bytes, 0);
    return bytes;
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

/**
 * Byte strings in a `ByteFile` by ticket, for values with no small key of their own (the
 * answer cache's pages, by address): `keep` hands out a ticket that reads the value back until
 * the file starts over or `keys` later values have been kept (keys are reused in turn, and a
 * reused key answers only its newest ticket).
 */
export class BytesByTicket {
  private readonly file: ByteFile;
  /** The ticket each key was last given to. */
  private readonly tickets: Float64Array;
  private issued = 0;

  constructor(
    capacity: number,
    directory?: string,
    private readonly keys = 65_536,
  ) {
    this.file = new ByteFile(capacity, directory);
    this.file.reserve(keys);
    this.tickets = new Float64Array(keys);
  }

  /** Keeps the bytes; null when they could not be (empty, larger than the file, or a failed write). */
  keep(bytes: Uint8Array): number | null {
    const ticket = (this.issued += 1);
    const key = ticket % this.keys;
    this.tickets[key] = ticket;
    try {
      return this.file.set(key, bytes) ? ticket : null;
    } catch {
      // A full disk: the caller keeps the value otherwise.
      return null;
    }
  }

  has(ticket: number): boolean {
    const key = ticket % this.keys;
    return this.tickets[key] === ticket && this.file.has(key);
  }

  /** The ticket's bytes in a buffer of their own, or undefined once they are gone. */
  read(ticket: number): Buffer | undefined {
    return this.has(ticket) ? this.file.copyOf(ticket % this.keys) : undefined;
  }

  /** Reads the ticket's bytes into the start of `target` (one `pread`); the bytes read, 0 once they are gone. */
  readInto(ticket: number, target: Uint8Array): number {
    return this.has(ticket) ? this.file.readInto(ticket % this.keys, target, 0) : 0;
  }

  drop(ticket: number): void {
    if (this.has(ticket)) this.file.delete(ticket % this.keys);
  }

  /** Values held, and the bytes they take. */
  get size(): number {
    return this.file.size;
  }

  get heldBytes(): number {
    return this.file.heldBytes;
  }

  close(): void {
    this.file.close();
  }
}
