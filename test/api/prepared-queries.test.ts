import { expect } from 'chai';
import { createDb, queryPrepared, type Db } from '../../src/db/knex.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

describe('queryPrepared: named prepared statements with a cap on shapes', () => {
  let database: TestDatabase;
  let db: Db;

  before(async () => {
    database = await createTestDatabase();
    // One connection, so every statement lands in the same statement cache.
    db = createDb(database.url, { max: 1 });
  });

  after(async () => {
    await db.destroy();
    await database.drop();
  });

  it('answers like the plain query, and reuses the statement for the same shape', async () => {
    const query = () => db.raw('select ?::int * 2 as doubled, ?::text as label', [21, 'x']);
    expect(await queryPrepared(db, query())).to.deep.equal([{ doubled: 42, label: 'x' }]);
    expect(await queryPrepared(db, db.raw('select ?::int * 2 as doubled, ?::text as label', [5, 'y']))).to.deep.equal([
      { doubled: 10, label: 'y' },
    ]);
    const { rows } = await db.raw(
      "select count(*)::int as n from pg_prepared_statements where statement like 'select $1::int * 2 as doubled%'",
    );
    expect(rows[0].n).to.equal(1);
  });

  it('runs new shapes unnamed once 200 are prepared, still answering correctly', async () => {
    for (let i = 0; i < 230; i += 1) {
      const [row] = await queryPrepared<{ n: number }>(db, db.raw(`select ?::int + ${i} as n`, [1000]));
      expect(row!.n).to.equal(1000 + i);
    }
    const { rows } = await db.raw('select count(*)::int as n from pg_prepared_statements');
    expect(rows[0].n).to.be.at.most(200);
    // Other test files in this process may have used some of the 200 names already.
    expect(rows[0].n).to.be.at.least(100);
  });

  it('runs on the transaction connection inside a transaction', async () => {
    await db.transaction(async (trx) => {
      await trx.raw('create temporary table seen (n int) on commit drop');
      await trx.raw('insert into seen values (7)');
      expect(await queryPrepared(trx, trx.raw('select n from seen where n = ?', [7]))).to.deep.equal([{ n: 7 }]);
    });
  });
});
