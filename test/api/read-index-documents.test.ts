/**
 * The read index's document cache is bounded by bytes as well as by count
 * (READ_INDEX_DOCUMENTS_MB): documents with evidence samples weigh several times a plain one.
 * The cache is one buffer written in turn (src/lib/byte-ring.ts): the newest stay.
 */
import { expect } from 'chai';
import { createLogger } from '../../src/logger.ts';
import { ReadIndexKeeper } from '../../src/runs/read-index/read-index.ts';
import { getRevisionProfile } from '../../src/revisions.ts';
import { seedDatabase } from '../bench/seed.ts';
import { useTestApp } from '../helpers/app.ts';
import { waitFor } from '../helpers/read-index.ts';

describe('read index documents kept within a byte budget', function () {
  this.timeout(60_000);
  const ctx = useTestApp({ READ_INDEX: 'off' });

  before(async () => {
    await seedDatabase(ctx.db, getRevisionProfile(3), {
      runs: 400,
      users: 20,
      models: 10,
      hardwareProfiles: 10,
      days: 10,
      log: () => undefined,
    });
  });

  /** A keeper with these cache bounds, built; and how many document reads a call to `documents` costs. */
  async function keeperWith(documentCacheSize: number, documentCacheBytes?: number) {
    const keeper = new ReadIndexKeeper({
      db: ctx.db,
      databaseUrl: ctx.databaseUrl,
      logger: createLogger('silent'),
      config: { enabled: true, freshness: 'notify', documentCacheSize, documentCacheBytes },
    });
    keeper.start();
    await waitFor(() => keeper.status().state === 'ready', 30_000);
    const index = (await keeper.current())!;
    const reads = async (slots: number[]) => {
      // The documents' read is a prepared statement on a connection of the pool: count those.
      const client = ctx.db.client as { acquireConnection(): Promise<unknown> };
      const acquire = client.acquireConnection;
      let queries = 0;
      client.acquireConnection = function (this: unknown) {
        queries += 1;
        return acquire.call(this);
      };
      try {
        const documents = await keeper.documents(index, slots);
        expect(documents.map((d) => d.slot)).to.deep.equal(slots);
        return { queries, chars: documents.reduce((sum, d) => sum + d.document.length, 0) };
      } finally {
        client.acquireConnection = acquire;
      }
    };
    return { keeper, reads };
  }

  it('keeps what fits the bytes and reads the rest again', async () => {
    const slots = Array.from({ length: 100 }, (_, slot) => slot);
    // Unbounded by bytes: a second read of the same page costs nothing.
    const roomy = await keeperWith(1000);
    const { chars, queries } = await roomy.reads(slots);
    expect(queries).to.equal(1);
    expect((await roomy.reads(slots)).queries).to.equal(0);
    await roomy.keeper.close();
    // Room for about half the page's bytes: the page cannot come from memory whole, while one run can.
    const tight = await keeperWith(1000, Math.floor(chars / 2));
    expect((await tight.reads(slots)).queries).to.equal(1);
    expect((await tight.reads(slots)).queries).to.equal(1);
    await tight.reads([99]);
    expect((await tight.reads([99])).queries).to.equal(0);
    await tight.keeper.close();
  });

  it('gives a page its cached documents even when other reads write over them while it waits', async () => {
    // Room for about 30 documents. The page's first 20 are cached; while it reads its other 20, another read writes 100 more.
    const sized = await keeperWith(1000);
    const index = (await sized.keeper.current())!;
    const perDocument = (await sized.reads([0])).chars;
    await sized.keeper.close();
    const { keeper } = await keeperWith(1000, perDocument * 30);
    const current = (await keeper.current())!;
    await keeper.documents(
      current,
      Array.from({ length: 20 }, (_, slot) => slot),
    );
    const client = ctx.db.client as { acquireConnection(): Promise<unknown> };
    const acquire = client.acquireConnection;
    let othersDone!: () => void;
    const othersWritten = new Promise<void>((resolve) => (othersDone = resolve));
    let first = true;
    client.acquireConnection = async function (this: unknown) {
      // The page's own read waits until the other read has written over the cache.
      if (first) {
        first = false;
        await othersWritten;
      }
      return acquire.call(this);
    };
    try {
      const page = Array.from({ length: 40 }, (_, slot) => slot);
      const pending = keeper.documents(current, page);
      await keeper.documents(
        current,
        Array.from({ length: 100 }, (_, i) => 200 + i),
      );
      othersDone();
      const documents = await pending;
      expect(documents.map((d) => d.slot)).to.deep.equal(page);
      for (const { slot, document } of documents) expect((JSON.parse(document) as { id: string }).id).to.equal(current.idOf(slot));
    } finally {
      client.acquireConnection = acquire;
      await keeper.close();
    }
    expect(index.count).to.be.greaterThan(300);
  });

  it('keeps the newest documents when only the count bounds the cache', async () => {
    // 60 documents, then 45 more, through a cache of 50: the oldest go an eighth at a time, the newest 40 stay.
    const counted = await keeperWith(50);
    await counted.reads(Array.from({ length: 60 }, (_, slot) => slot));
    await counted.reads(Array.from({ length: 45 }, (_, i) => 60 + i));
    expect((await counted.reads(Array.from({ length: 40 }, (_, i) => 65 + i))).queries).to.equal(0);
    await counted.keeper.close();
  });
});
