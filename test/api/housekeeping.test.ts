import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { createHousekeepingService, RETENTION } from '../../src/services/housekeeping.service.ts';
import { signedUpAgent, useTestApp } from '../helpers/app.ts';

describe('housekeeping', () => {
  const ctx = useTestApp();

  it('deletes rate-limit counters and idempotency keys past their retention, and keeps the rest', async () => {
    const { username } = await signedUpAgent(ctx.app);
    const { id: userId } = await ctx.db('users').where({ username }).first('id');
    const now = new Date('2026-11-21T12:00:00Z');
    const old = new Date(now.getTime() - RETENTION.rateLimitCountersMs - 1000);
    const recent = new Date(now.getTime() - 60_000);
    await ctx.db('rate_limit_counters').insert([
      { bucket: 'signin', key: 'old', window_start: old, count: 3 },
      { bucket: 'signin', key: 'recent', window_start: recent, count: 1 },
    ]);
    await ctx.db('idempotency_keys').insert([
      {
        user_id: userId,
        scope: 'speed-test',
        key: randomUUID(),
        request_hash: 'a'.repeat(64),
        created_at: new Date(now.getTime() - RETENTION.idempotencyKeysMs - 1000),
      },
      { user_id: userId, scope: 'speed-test', key: 'recent', request_hash: 'b'.repeat(64), created_at: recent },
    ]);
    const pruned = await createHousekeepingService({ db: ctx.db }).pruneExpired(now);
    expect(pruned).to.deep.equal({ rateLimitCounters: 1, idempotencyKeys: 1 });
    expect(await ctx.db('rate_limit_counters').where({ bucket: 'signin' }).orderBy('key').pluck('key')).to.deep.equal(['recent']);
    expect(await ctx.db('idempotency_keys').where({ user_id: userId }).pluck('key')).to.deep.equal(['recent']);
  });
});
