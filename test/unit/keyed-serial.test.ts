import { expect } from 'chai';
import { createKeyedSerial } from '../../src/lib/keyed-serial.ts';

describe('createKeyedSerial', () => {
  const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

  it('runs the tasks of one key one at a time, in order, and of different keys together', async () => {
    const serially = createKeyedSerial();
    const running = new Map<string, number>();
    const most = new Map<string, number>();
    let together = 0;
    let mostTogether = 0;
    const order: string[] = [];
    const task = (key: string, n: number) => async () => {
      running.set(key, (running.get(key) ?? 0) + 1);
      together += 1;
      most.set(key, Math.max(most.get(key) ?? 0, running.get(key)!));
      mostTogether = Math.max(mostTogether, together);
      await tick();
      order.push(`${key}${n}`);
      running.set(key, running.get(key)! - 1);
      together -= 1;
      return n;
    };
    const results = await Promise.all([0, 1, 2].flatMap((n) => [serially('a', task('a', n)), serially('b', task('b', n))]));
    expect(results).to.deep.equal([0, 0, 1, 1, 2, 2]);
    expect(Object.fromEntries(most)).to.deep.equal({ a: 1, b: 1 });
    expect(mostTogether).to.equal(2);
    expect(order.filter((entry) => entry.startsWith('a'))).to.deep.equal(['a0', 'a1', 'a2']);
  });

  it('goes on with the next task of a key after one fails, and passes the failure to its caller', async () => {
    const serially = createKeyedSerial();
    const failing = serially('a', async () => {
      await tick();
      throw new Error('boom');
    });
    const next = serially('a', async () => 'next');
    const failure = await failing.then(
      () => null,
      (error: Error) => error.message,
    );
    expect(failure).to.equal('boom');
    expect(await next).to.equal('next');
  });
});
