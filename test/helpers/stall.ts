import type { Express } from 'express';
import request from 'supertest';

/**
 * The longest `/healthz` answer while `attack` runs: the service's event loop (or its pool)
 * stalled for about that long. Probes one at a time, every `everyMs`, until the attack
 * settles; at least one probe is made.
 */
export async function worstHealthLatencyDuring(app: Express, attack: () => Promise<unknown>, everyMs = 25): Promise<number> {
  let settled = false;
  const attacking = attack().finally(() => (settled = true));
  let worst = 0;
  do {
    const started = performance.now();
    await request(app).get('/healthz').expect(200);
    worst = Math.max(worst, performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  } while (!settled);
  await attacking;
  return worst;
}
