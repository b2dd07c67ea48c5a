import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { decodeFeedCursor, encodeFeedCursor, ranOnListedHardware, runHardwareNames, summariseProof } from '../../src/lib/marketplace.ts';

describe('marketplace rules (src/lib/marketplace.ts)', () => {
  describe('feed cursor', () => {
    it('round-trips the stored microsecond timestamp text and the id exactly', () => {
      const position = { updatedAt: '2026-11-26T12:34:56.123456Z', id: randomUUID() };
      const cursor = encodeFeedCursor(position);
      expect(cursor).to.match(/^[A-Za-z0-9_-]+$/);
      expect(decodeFeedCursor(cursor)).to.deep.equal(position);
    });

    it('refuses anything that is not a position it wrote', () => {
      const id = randomUUID();
      const of = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
      for (const cursor of [
        '',
        'not base64!',
        of(['2026-11-26T12:34:56.123Z', id]), // milliseconds: not the stored text
        of(['2026-11-26 12:34:56.123456+00', id]),
        of(['2026-11-26T12:34:56.123456Z', id.toUpperCase()]),
        of(['2026-11-26T12:34:56.123456Z']),
        of(['2026-11-26T12:34:56.123456Z', id, 'extra']),
        of({ updatedAt: '2026-11-26T12:34:56.123456Z', id }),
        of(['2026-02-30T99:99:99.000000Z', id]),
        of(['2026-02-30T10:00:00.000000Z', id]),
        Buffer.from('["2026-11-26T12:34:56.123456Z",').toString('base64url'),
      ]) {
        expect(decodeFeedCursor(cursor), cursor).to.equal(null);
      }
    });
  });

  describe('proof', () => {
    const gpu = (hardwareName: string) => ({ hwClass: 'DISCRETE_GPU', hardwareName });
    const run = (id: string, tokSOut: number, gpuName: string, hfId = 'org/model') => ({
      id,
      tokSOut,
      model: { hfId },
      hardware: { hwClass: 'DISCRETE_GPU', gpuName },
    });

    it('takes the best output tok/s and its model, and prices it per tok/s', () => {
      const summary = summariseProof([run('a', 40, 'RTX 4090', 'org/small'), run('b', 80, 'RTX 4090', 'org/big')], {
        hwClass: 'DISCRETE_GPU',
        hardwareName: 'NVIDIA GeForce RTX 4090',
        priceUsd: 1600,
      });
      expect(summary).to.deep.equal({ bestTokSOut: 80, bestRunId: 'b', bestModel: 'org/big', usdPerTokSOut: 20, matchesListing: true });
    });

    it('matches only when every proof run ran on the listed hardware; nothing to say without runs', () => {
      expect(
        summariseProof([run('a', 40, 'RTX 4090'), run('b', 50, 'RTX 3090')], {
          hwClass: 'DISCRETE_GPU',
          hardwareName: 'RTX 4090',
          priceUsd: 1,
        }).matchesListing,
      ).to.equal(false);
      expect(summariseProof([], { hwClass: 'DISCRETE_GPU', hardwareName: 'RTX 4090', priceUsd: 1 })).to.deep.equal({
        bestTokSOut: null,
        bestRunId: null,
        bestModel: null,
        usdPerTokSOut: null,
        matchesListing: null,
      });
    });

    it('values a listing only by proof on the listed hardware, and gives no value when none ran on it', () => {
      const listing = { hwClass: 'DISCRETE_GPU', hardwareName: 'RTX 3090', priceUsd: 800 };
      // The 4090 run is faster, but the listing sells a 3090: the value is the 3090 run's.
      const mixed = summariseProof([run('fast', 100, 'RTX 4090'), run('own', 40, 'NVIDIA GeForce RTX 3090')], listing);
      expect(mixed).to.include({ bestTokSOut: 100, usdPerTokSOut: 20, matchesListing: false });
      const elsewhere = summariseProof([run('fast', 100, 'RTX 4090')], listing);
      expect(elsewhere).to.include({ bestTokSOut: 100, usdPerTokSOut: null, matchesListing: false });
    });

    it('compares hardware as devices, across mixed cards, chips and CPUs', () => {
      expect(ranOnListedHardware(gpu('rtx4090'), { gpuName: 'NVIDIA GeForce RTX 4090' })).to.equal(true);
      expect(ranOnListedHardware(gpu('RTX 4090'), { gpuName: 'RTX 4090 D' })).to.equal(false);
      expect(
        ranOnListedHardware(gpu('RTX 3090'), {
          gpus: [
            { gpuName: 'RTX 4090', count: 1 },
            { gpuName: 'RTX 3090', count: 1 },
          ],
        }),
      ).to.equal(true);
      expect(
        ranOnListedHardware(
          { hwClass: 'UNIFIED', hardwareName: 'Apple M2 Max' },
          { hwClass: 'UNIFIED', chipVendor: 'Apple', chipFamily: 'M2', chipVariant: 'Max' },
        ),
      ).to.equal(true);
      expect(
        ranOnListedHardware({ hwClass: 'CPU_ONLY', hardwareName: 'AMD Ryzen 9 7950X' }, { hwClass: 'CPU_ONLY', cpu: 'Ryzen 9 7950X' }),
      ).to.equal(true);
      expect(ranOnListedHardware(gpu(''), { gpuName: 'RTX 4090' })).to.equal(false);
      expect(runHardwareNames(null)).to.deep.equal([]);
    });
  });
});
