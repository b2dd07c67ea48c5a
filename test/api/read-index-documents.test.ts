/**
 * Where the read index keeps run documents. As deployed, every one in a file filled once the
 * index is ready (READ_INDEX_DOCUMENT_FILE_MB, src/lib/byte-file.ts), so a page costs no round
 * trip. With the file off, a cache in memory bounded by bytes as well as by count
 * (READ_INDEX_DOCUMENTS_MB): documents with evidence samples weigh several times a plain one.
 * That cache is one buffer written in turn (src/lib/byte-ring.ts): the newest stay.
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
  async function keeperWith(
    documentCacheSize: number,
    documentCacheBytes?: number,
    documentFileBytes?: number,
    logger = createLogger('silent'),
  ) {
    const keeper = new ReadIndexKeeper({
      db: ctx.db,
      databaseUrl: ctx.databaseUrl,
      logger,
      config: { enabled: true, freshness: 'notify', documentCacheSize, documentCacheBytes, documentFileBytes },
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
      for (const { slot, document } of documents)
        expect((JSON.parse(document.toString()) as { id: string }).id).to.equal(current.idOf(slot));
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

  describe('in a file', () => {
    const filled = async (keeper: ReadIndexKeeper) => waitFor(() => !keeper.status().documents.filling, 30_000, 'the document file filled');

    it("holds every run's document once filled, so no page costs a query", async () => {
      const { keeper, reads } = await keeperWith(1000, undefined, 64 * 2 ** 20);
      await filled(keeper);
      const index = (await keeper.current())!;
      expect(keeper.status().documents).to.deep.equal({ store: 'file', held: index.count, filling: false });
      const everySlot = Array.from({ length: index.slotCount }, (_, slot) => slot).filter((slot) => index.holdsSlot(slot));
      const { queries } = await reads(everySlot);
      expect(queries).to.equal(0);
      const page = await keeper.documents(index, everySlot.slice(0, 50));
      for (const { slot, document } of page) expect((JSON.parse(document.toString()) as { id: string }).id).to.equal(index.idOf(slot));
      // Read straight from the file into one buffer, back to back: no string, no buffer per document.
      const { buffer, byteOffset } = page[0]!.document;
      let at = byteOffset;
      for (const { document } of page) {
        expect([document.buffer === buffer, document.byteOffset]).to.deep.equal([true, at]);
        at += document.length;
      }
      await keeper.close();
    });

    it("reads a changed run's document again, and keeps the new one", async () => {
      const { keeper, reads } = await keeperWith(1000, undefined, 64 * 2 ** 20);
      await filled(keeper);
      const index = (await keeper.current())!;
      const id = index.idOf(7);
      const before = (await keeper.documents(index, [7]))[0]!.document.toString();
      // A change the triggers notify: the slot's document leaves the file until it is read again.
      await ctx.db.raw(
        `update speed_test_run_documents set document = jsonb_set(document::jsonb, '{notes}', '"changed"')::text where run_id = ?`,
        [id],
      );
      await keeper.caughtUp();
      expect((await reads([7])).queries).to.equal(1);
      const after = (await keeper.documents(index, [7]))[0]!.document.toString();
      expect(after).to.not.equal(before);
      expect((JSON.parse(after) as { notes: string }).notes).to.equal('changed');
      expect((await reads([7])).queries).to.equal(0);
      await keeper.close();
    });

    it('fills a file too small for every document once, and says so, instead of filling it forever', async () => {
      const warnings: string[] = [];
      const logger = createLogger('silent');
      logger.warn = ((_fields: unknown, message: string) => void warnings.push(message)) as typeof logger.warn;
      const { keeper, reads } = await keeperWith(1000, undefined, 200 * 1024, logger);
      await filled(keeper);
      const index = (await keeper.current())!;
      const { held } = keeper.status().documents;
      expect(held).to.be.above(0).and.below(index.count);
      expect(warnings).to.deep.equal(['READ_INDEX_DOCUMENT_FILE_MB holds fewer than every run document']);
      // What it holds is the newest written; pages read the rest and keep them.
      expect((await reads([0, 1, 2])).queries).to.equal(1);
      expect((await reads([0, 1, 2])).queries).to.equal(0);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(keeper.status().documents.filling).to.equal(false);
      await keeper.close();
    });

    it('fills the file again when rewritten documents have filled it and it starts over', async () => {
      // Room for every document and a third more: rewriting half of them makes the file start over.
      const sizing = await keeperWith(1000, undefined, 64 * 2 ** 20);
      await filled(sizing.keeper);
      const index = (await sizing.keeper.current())!;
      const everySlot = Array.from({ length: index.slotCount }, (_, slot) => slot).filter((slot) => index.holdsSlot(slot));
      const bytes = (await sizing.keeper.documents(index, everySlot)).reduce((sum, d) => sum + Buffer.byteLength(d.document) + 8, 0);
      await sizing.keeper.close();
      const { keeper, reads } = await keeperWith(1000, undefined, Math.ceil(bytes * 1.33));
      await filled(keeper);
      const current = (await keeper.current())!;
      const half = everySlot.slice(0, Math.ceil(everySlot.length / 2));
      await ctx.db.raw(
        `update speed_test_run_documents set document = jsonb_set(document::jsonb, '{notes}', '"rewritten"')::text where run_id = any(?::uuid[])`,
        [half.map((slot) => current.idOf(slot))],
      );
      await keeper.caughtUp();
      // The pages that show them read them again and append them: past the file's end, it starts over and is filled again.
      await keeper.documents(current, half);
      await waitFor(() => !keeper.status().documents.filling && keeper.status().documents.held === current.count, 30_000, 'filled again');
      expect((await reads(everySlot)).queries).to.equal(0);
      const notes = (await keeper.documents(current, half)).map(
        ({ document }) => (JSON.parse(document.toString()) as { notes: string }).notes,
      );
      expect(new Set(notes)).to.deep.equal(new Set(['rewritten']));
      await keeper.close();
    });

    it('says where documents are kept when they are in memory', async () => {
      const { keeper, reads } = await keeperWith(1000);
      await reads([0, 1]);
      expect(keeper.status().documents).to.deep.equal({ store: 'memory', held: 2, filling: false });
      await keeper.close();
    });
  });
});
