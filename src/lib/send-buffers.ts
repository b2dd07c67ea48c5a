/**
 * Buffers for answers read from a file to be sent, reused once the response that sent one has
 * handed its bytes to the operating system. A buffer per answer (100 KB, outside V8's heap)
 * made V8 collect its whole heap again and again under load: the filter mix's hits read 330 MB
 * a second from the answer file into new buffers, and it ran 14-16 mark-compacts a second
 * where the same app's ceiling route ran 3-5 (issue 37).
 *
 * Buffers come in power-of-two sizes (16 KB and up), and at most `keepPerSize` of each size are
 * kept for reuse: about as many as answers are in flight at once.
 */
const SMALLEST = 16 * 1024;

/** A response, as far as this takes it: it says when it has finished. */
interface Finishing {
  once(event: 'finish', listener: () => void): unknown;
}

export class SendBuffers {
  private readonly free = new Map<number, Buffer[]>();

  constructor(private readonly keepPerSize = 48) {}

  /**
   * A buffer of at least `length` bytes for `res` to send (its first `length` bytes), given back
   * for reuse once the response has finished, that is once the operating system has every byte of it.
   * A response that never finishes (its client went away) keeps its buffer, and the collector takes it.
   */
  forResponse(res: Finishing, length: number): Buffer {
    const size = Math.max(SMALLEST, 2 ** Math.ceil(Math.log2(length)));
    const buffer = this.free.get(size)?.pop() ?? Buffer.allocUnsafeSlow(size);
    res.once('finish', () => this.giveBack(buffer));
    return buffer;
  }

  /** Buffers kept for reuse now, in all. */
  get kept(): number {
    let count = 0;
    for (const list of this.free.values()) count += list.length;
    return count;
  }

  private giveBack(buffer: Buffer): void {
    let list = this.free.get(buffer.length);
    if (!list) this.free.set(buffer.length, (list = []));
    if (list.length < this.keepPerSize) list.push(buffer);
  }
}
