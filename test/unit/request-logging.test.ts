import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import type { DatabaseHealth } from '../../src/db/health.ts';
import { createLogger, type Logger } from '../../src/logger.ts';
import { requestLogging } from '../../src/middleware/request-logging.ts';
import { logSink } from '../helpers/app.ts';

const healthy = { countedAsOutage: () => false } as unknown as DatabaseHealth;

/** An app whose one route says what the request was given: its id and whether its logger is `logger` itself. */
function appWith(logger: Logger) {
  const app = express();
  app.use(requestLogging(logger, healthy));
  app.get('/', (req, res) => {
    req.log.info('inside the route');
    res.json({ id: req.id, sameLogger: req.log === logger });
  });
  return app;
}

describe('request logging', () => {
  it('gives every request an id and a logger, whatever the level', async () => {
    for (const level of ['silent', 'info']) {
      const app = appWith(createLogger(level, logSink([])));
      const generated = await request(app).get('/').expect(200);
      expect(generated.headers['x-request-id'], level).to.match(/^[0-9a-f-]{36}$/);
      expect(generated.body.id, level).to.equal(generated.headers['x-request-id']);
      const kept = await request(app).get('/').set('X-Request-Id', 'trace-abc.123').expect(200);
      expect(kept.headers['x-request-id'], level).to.equal('trace-abc.123');
      expect(kept.body.id, level).to.equal('trace-abc.123');
    }
  });

  it('hands a silent logger to the request as it is: no per-request child serialising the request', async () => {
    const lines: Record<string, unknown>[] = [];
    const res = await request(appWith(createLogger('silent', logSink(lines))))
      .get('/')
      .expect(200);
    expect(res.body.sameLogger).to.equal(true);
    expect(lines).to.deep.equal([]);
  });

  it('logs each finished request, with its id, through a logger that writes', async () => {
    const lines: Record<string, unknown>[] = [];
    const res = await request(appWith(createLogger('info', logSink(lines))))
      .get('/')
      .set('X-Request-Id', 'trace-1')
      .expect(200);
    expect(res.body.sameLogger).to.equal(false);
    const inside = lines.find((line) => line.msg === 'inside the route');
    expect(inside?.reqId ?? (inside?.req as { id?: string } | undefined)?.id).to.equal('trace-1');
    const finished = lines.find((line) => line.msg === 'request completed');
    expect((finished?.req as { id?: string; url?: string } | undefined)?.url).to.equal('/');
    expect((finished?.res as { statusCode?: number } | undefined)?.statusCode).to.equal(200);
  });
});
