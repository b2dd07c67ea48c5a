import { expect } from 'chai';
import type { NextFunction, Request, Response } from 'express';
import { errorHandler } from '../../src/middleware/errors.ts';

/**
 * A failure after the answer began (a streamed export) cannot become an error answer. The
 * handler closes the connection itself: handed on, Express's fallback prints the stack for
 * every such request (an outage mid-download, every abandoned download).
 */
describe('errorHandler once the answer has begun', () => {
  function failAfterHeaders(error: unknown) {
    const logged: unknown[] = [];
    const outages: unknown[] = [];
    let handedOn = false;
    const res = {
      headersSent: true,
      destroyed: false,
      destroy() {
        this.destroyed = true;
      },
    };
    const req = { id: 'r1', log: { error: (...args: unknown[]) => logged.push(args) } };
    const handle = errorHandler({ databaseHealth: { failed: (e: unknown) => outages.push(e), countedAsOutage: () => false, close() {} } });
    handle(
      error,
      req as unknown as Request,
      res as unknown as Response,
      (() => {
        handedOn = true;
      }) as NextFunction,
    );
    return { logged, outages, handedOn, destroyed: res.destroyed };
  }

  it('reports a database outage to the database health, logs nothing itself and closes the connection', () => {
    const outage = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
    expect(failAfterHeaders(outage)).to.deep.equal({ logged: [], outages: [outage], handedOn: false, destroyed: true });
  });

  it('treats a client that left mid-download as no error', () => {
    const left = Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
    expect(failAfterHeaders(left)).to.deep.equal({ logged: [], outages: [], handedOn: false, destroyed: true });
  });

  it('logs any other failure once with the request id, and closes the connection', () => {
    const result = failAfterHeaders(new Error('cursor broke'));
    expect(result.logged).to.have.length(1);
    expect(result).to.include({ handedOn: false, destroyed: true });
    expect(result.outages).to.deep.equal([]);
  });
});
