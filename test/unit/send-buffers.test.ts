/**
 * Plain answers read from the answer file are sent from buffers reused once their response has
 * finished (src/lib/send-buffers.ts): a new 100 KB buffer per hit drove V8 to collect its whole
 * heap 14-16 times a second under the filter mix.
 */
import { EventEmitter } from 'node:events';
import { expect } from 'chai';
import { SendBuffers } from '../../src/lib/send-buffers.ts';

describe('SendBuffers: buffers to send, reused once sent', () => {
  it('hands out a buffer of at least the length asked, and reuses it only once its response has finished', () => {
    const buffers = new SendBuffers();
    const first = new EventEmitter();
    const a = buffers.forResponse(first, 100_000);
    expect(a.length).to.equal(131_072);
    // Still being sent: the next response gets another one.
    const second = new EventEmitter();
    const b = buffers.forResponse(second, 100_000);
    expect(b).to.not.equal(a);
    first.emit('finish');
    expect(buffers.kept).to.equal(1);
    expect(buffers.forResponse(new EventEmitter(), 70_000)).to.equal(a);
    expect(buffers.kept).to.equal(0);
    // A size of its own for a page of another size, and 16 KB at the least.
    expect(buffers.forResponse(new EventEmitter(), 200_000).length).to.equal(262_144);
    expect(buffers.forResponse(new EventEmitter(), 10).length).to.equal(16_384);
  });

  it('never reuses the buffer of a response that closed without finishing, and keeps at most its bound of each size', () => {
    const buffers = new SendBuffers(2);
    const gone = new EventEmitter();
    const held = buffers.forResponse(gone, 50_000);
    gone.emit('close');
    expect(buffers.kept).to.equal(0);
    const responses = Array.from({ length: 4 }, () => new EventEmitter());
    const given = responses.map((res) => buffers.forResponse(res, 50_000));
    expect(given).to.not.include(held);
    for (const res of responses) res.emit('finish');
    expect(buffers.kept).to.equal(2);
  });
});
