/**
 * The answer cache makes a cold answer once for clients asking at the same moment
 * (src/middleware/read-cache.ts): the others wait for it and are served what it kept.
 */
import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import { systemClock } from '../../src/lib/clock.ts';
import { readCache } from '../../src/middleware/read-cache.ts';
import type { RunIndex } from '../../src/runs/read-index/run-index.ts';
import { noReadIndex } from '../../src/runs/read-index/read-index.ts';

describe('anonymous answers made once for clients asking together', () => {
  let made = 0;
  let refused = 0;
  const app = express();
  app.use(
    readCache({
      readIndex: { ...noReadIndex, current: async () => ({}) as RunIndex, changes: () => 1 },
      paths: new Set(['/slow', '/refused']),
      clockMoved: new Set(),
      clock: systemClock,
      maxBytes: 1 << 20,
    }),
  );
  app.get('/slow', async (req, res) => {
    made += 1;
    await new Promise((resolve) => setTimeout(resolve, 30));
    res.json({ page: req.query.page ?? '1', made });
  });
  app.get('/refused', async (_req, res) => {
    refused += 1;
    await new Promise((resolve) => setTimeout(resolve, 30));
    res.status(400).json({ error: 'no' });
  });

  it('makes a cold answer once: the others wait for it and get the same bytes', async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, () => request(app).get('/slow').expect(200)));
    expect(made).to.equal(1);
    expect(answers.map((answer) => answer.headers['x-read-cache']).sort()).to.deep.equal([
      'hit',
      'hit',
      'hit',
      'hit',
      'hit',
      'hit',
      'hit',
      'miss',
    ]);
    for (const answer of answers) expect(answer.body).to.deep.equal({ page: '1', made: 1 });
    // Another address is another answer.
    await Promise.all([request(app).get('/slow?page=2').expect(200), request(app).get('/slow?page=2').expect(200)]);
    expect(made).to.equal(2);
  });

  it('lets each waiting request make its own when the first answer could not be kept', async () => {
    const answers = await Promise.all(Array.from({ length: 4 }, () => request(app).get('/refused')));
    expect(answers.map((answer) => answer.status)).to.deep.equal([400, 400, 400, 400]);
    expect(refused).to.equal(4);
  });
});
