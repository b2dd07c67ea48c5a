import { expect } from 'chai';
import type { Db } from '../../src/db/knex.ts';
import { createSpeedTestWriter } from '../../src/runs/submission/speed-tests.service.ts';
import { noReadIndex, type RunReadIndex } from '../../src/runs/read-index/read-index.ts';
import { assertVisibleWrite, writeVisibly } from '../../src/services/visible-writes.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

/** writeVisibly: one transaction, then one catch-up of the read index, after the commit. */
describe('writeVisibly: the one way to write what reads show', () => {
  let database: TestDatabase;
  /** What each catch-up found committed: the usernames it could read from another connection. */
  let catchUps: string[][];
  let readIndex: RunReadIndex;

  before(async () => {
    database = await createTestDatabase();
  });
  after(async () => {
    await database?.drop();
  });
  beforeEach(() => {
    catchUps = [];
    readIndex = {
      ...noReadIndex,
      caughtUp: async () =>
        void catchUps.push(await database.db('users').where('username', 'like', 'vw_%').orderBy('username').pluck('username')),
    };
  });

  const addUser = (trx: TestDatabase['db'], username: string) =>
    trx('users').insert({ username, display_name: username, password_hash: 'unused' });

  it('catches up once, after the commit: the catch-up sees the change', async () => {
    const answer = await writeVisibly({ db: database.db, readIndex }, async (trx) => {
      await addUser(trx, 'vw_one');
      return 'answered';
    });
    expect(answer).to.equal('answered');
    expect(catchUps).to.deep.equal([['vw_one']]);
  });

  it('does not catch up after a write that failed (rolled back)', async () => {
    const failing = writeVisibly({ db: database.db, readIndex }, async (trx) => {
      await addUser(trx, 'vw_rolled_back');
      throw new Error('refused');
    });
    await failing.then(
      () => expect.fail('the write should have failed'),
      (error: Error) => expect(error.message).to.equal('refused'),
    );
    expect(catchUps).to.deep.equal([]);
    expect(await database.db('users').where({ username: 'vw_rolled_back' }).first()).to.equal(undefined);
  });

  it('joins a visible transaction it is called in (a service built on it): one catch-up, by the opener', async () => {
    await writeVisibly({ db: database.db, readIndex }, async (trx) => {
      await addUser(trx, 'vw_outer');
      await writeVisibly({ db: trx, readIndex }, (inner) => addUser(inner, 'vw_inner'));
    });
    expect(catchUps).to.have.length(1);
    expect(catchUps[0]).to.include.members(['vw_outer', 'vw_inner']);
  });

  it('refuses to run inside a transaction it did not open, whose commit it could not follow', async () => {
    await database.db.transaction(async (trx) => {
      await writeVisibly({ db: trx, readIndex }, async () => 'never').then(
        () => expect.fail('should refuse'),
        (error: Error) => expect(error.message).to.match(/inside a transaction it did not open/),
      );
    });
    expect(catchUps).to.deep.equal([]);
  });

  it('is what the run writer insists on: a write on a plain transaction or the pool is refused', async () => {
    // Refused before anything is read or written, so the run need not be a real one.
    const refused = (db: Db) =>
      createSpeedTestWriter({ db })
        .store({ normalised: {} as never, model: {} as never, userId: 'nobody', createdAt: new Date() })
        .then(
          () => expect.fail('should refuse'),
          (error: Error) => expect(error.message).to.match(/writeVisibly/),
        );
    await refused(database.db);
    await database.db.transaction(async (trx) => refused(trx));
    await writeVisibly({ db: database.db, readIndex }, async (trx) => {
      expect(() => assertVisibleWrite(trx)).not.to.throw();
    });
  });
});
