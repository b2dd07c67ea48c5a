/**
 * Read-your-writes in the production freshness mode (READ_INDEX_FRESHNESS=notify, issue 31):
 * every kind of write made through the API or the pages is in the leaderboard and the results
 * list of the same instance in the very next request. The read index's listener hears the
 * database 200 ms late here, so a write path that answers before its own change has reached
 * the index is read stale every time, not only when it loses the race.
 */
import { expect } from 'chai';
import request from 'supertest';
import { useTestApp, type TestContext } from '../helpers/app.ts';
import { fakeHubModels } from '../helpers/fake-hub.ts';
import { account, submitRun, type Account } from '../helpers/moderation.ts';
import { bearer } from '../helpers/quality.ts';
import { waitFor } from '../helpers/read-index.ts';

/** Longer than a request takes here, well under the 2 s a catch-up waits at most. */
const LISTENER_DELAY_MS = 200;
/** Runs of a model outside the fake hub's one finetune tree, so only the catalogue test grows that tree. */
const MODEL = fakeHubModels.moeByArchitecture;

type Row = Record<string, any>;

/** The instance under test in notify mode with its listener slowed down, ready once its index is built. */
function useNotifyApp(): TestContext {
  const ctx = useTestApp({ READ_INDEX_FRESHNESS: 'notify' }, { fakeHub: true, readIndexListenerDelayMs: LISTENER_DELAY_MS });
  before(async () => {
    const state = async () => (await request(ctx.app).get('/healthz').expect(200)).body.readIndex.state;
    await waitFor(async () => (await state()) === 'ready', 15_000, 'the read index built');
  });
  return ctx;
}

/** The reads under test: the leaderboard and the results list, as an anonymous reader gets them. */
function readsOf(ctx: TestContext) {
  const board = async (query = ''): Promise<Row[]> =>
    (await request(ctx.app).get(`/api/leaderboard?limit=100${query}`).expect(200)).body.rows;
  const list = async (query = ''): Promise<Row[]> =>
    (await request(ctx.app).get(`/api/speed-tests?limit=100${query}`).expect(200)).body.benchmarks;
  const boardRow = async (id: string, query = '') => (await board(query)).find((row) => row.id === id);
  const listRow = async (id: string, query = '') => (await list(query)).find((row) => row.id === id);
  /** The run on the board and in the list (undefined where it is not). */
  const shown = async (id: string, query = '') => ({ board: await boardRow(id, query), list: await listRow(id, query) });
  return { board, list, boardRow, shown };
}

/**
 * A base model catalogued by `catalogueBase` adopts a quant catalogued before it: the quant's
 * run takes the base's size and is re-judged, and the base's tree (resolved and kept by the
 * index) gains the base's own runs. All of it is read back in the next requests.
 */
async function expectBaseCataloguedAtOnce(ctx: TestContext, owner: Account, catalogueBase: () => Promise<string[]>) {
  const { list, shown } = readsOf(ctx);
  const tree = async () => (await list(`&hfId=${fakeHubModels.dense}`)).map((row) => row.id);
  // Before its base is catalogued the quant is sized from its name (7 B, approximate).
  const quant = await submitRun(ctx, owner, { hfId: fakeHubModels.awqQuant, quantization: 'AWQ', tokSOut: 150 });
  expect((await shown(quant.id)).board?.model).to.include({ params: 7, paramsApproximate: true });
  expect(await tree(), 'the tree named by its base (resolved and kept)').to.deep.equal([quant.id]);

  const baseRunIds = await catalogueBase();
  expect(await tree(), 'the base joined its tree').to.have.members([quant.id, ...baseRunIds]);
  const stored = (await request(ctx.app).get(`/api/speed-tests/${quant.id}`).expect(200)).body;
  expect(stored.model, 'the stored run').to.include({ params: 7.24, paramsApproximate: false });
  for (const [where, row] of Object.entries(await shown(quant.id))) {
    expect(row?.model, where).to.include({ params: 7.24, paramsApproximate: false });
    expect(row, `${where}: the re-judged verdict`).to.include({
      plausibility: stored.plausibility,
      decodeBoundTokS: stored.decodeBoundTokS,
    });
  }
}

describe('Read your writes: each write is in the next read of the leaderboard and the list (notify)', function () {
  this.timeout(60_000);
  const ctx = useNotifyApp();
  const { board, boardRow, shown } = readsOf(ctx);
  let admin: Account;
  let owner: Account;
  let reactor: Account;
  const submit = (overrides: Row = {}) => submitRun(ctx, owner, { hfId: MODEL, ...overrides });

  before(async () => {
    admin = await account(ctx, 'admin', { admin: true });
    owner = await account(ctx, 'owner');
    reactor = await account(ctx, 'reactor');
  });

  it('shows a submission at once, on a hardware profile new to the catalogue too', async () => {
    const byName = '&hardwareName=RTX%205090';
    expect(await board(byName), 'no such profile yet (the name is resolved and kept)').to.deep.equal([]);
    const run = await submit({ tokSOut: 51, hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA GeForce RTX 5090', vramGb: 32 } });
    const { board: onBoard, list: listed } = await shown(run.id);
    expect(onBoard, 'on the board').to.include({ tokSOut: 51 });
    expect(listed, 'in the list').to.include({ tokSOut: 51 });
    expect(await boardRow(run.id, byName), 'found by its new hardware name').to.include({ tokSOut: 51 });
  });

  it("shows an owner's correction at once: new figures, and moved to its new hardware class", async () => {
    const run = await submit({ tokSOut: 52 });
    expect((await shown(run.id)).board).to.include({ tokSOut: 52 }); // its document is cached now
    await request(ctx.app)
      .patch(`/api/speed-tests/${run.id}`)
      .set('Authorization', `Bearer ${owner.key}`)
      .send({ tokSOut: 12.5, hardware: { hwClass: 'CPU_ONLY', cpu: 'AMD EPYC 9654', ramGb: 384 } })
      .expect(200);
    const moved = await shown(run.id, '&hwClass=CPU_ONLY');
    expect(moved.board, 'on the board').to.include({ tokSOut: 12.5 });
    expect(moved.list, 'in the list').to.include({ tokSOut: 12.5 });
    expect(await shown(run.id, '&hwClass=DISCRETE_GPU')).to.deep.equal({ board: undefined, list: undefined });
  });

  it('takes a withdrawn run out at once', async () => {
    const run = await submit({ tokSOut: 53 });
    expect((await shown(run.id)).board).to.include({ tokSOut: 53 });
    await request(ctx.app).delete(`/api/speed-tests/${run.id}`).set('Authorization', `Bearer ${owner.key}`).expect(200);
    expect(await shown(run.id)).to.deep.equal({ board: undefined, list: undefined });
  });

  it("takes a run out at an admin's rejection and brings it back at the restore, each at once", async () => {
    const run = await submit({ tokSOut: 54 });
    expect((await shown(run.id)).board).to.include({ tokSOut: 54 });
    await admin.agent.post(`/admin/runs/${run.id}/reject`).type('form').send({ _csrf: admin.csrf, reason: 'implausible' }).expect(303);
    expect(await shown(run.id)).to.deep.equal({ board: undefined, list: undefined });
    await admin.agent.post(`/admin/runs/${run.id}/restore`).type('form').send({ _csrf: admin.csrf }).expect(303);
    const back = await shown(run.id);
    expect(back.board, 'on the board').to.include({ tokSOut: 54 });
    expect(back.list, 'in the list').to.include({ tokSOut: 54 });
  });

  it('shows a reaction added, changed and taken back at once, through the API and the page', async () => {
    const run = await submit({ tokSOut: 55 });
    const counts = async () => {
      const { board: onBoard, list: listed } = await shown(run.id);
      expect(listed?.reactionCounts, 'the list agrees with the board').to.deep.equal(onBoard?.reactionCounts);
      return onBoard?.reactionCounts;
    };
    expect(await counts()).to.deep.equal({}); // cached with no reactions
    await request(ctx.app)
      .post(`/api/runs/${run.id}/react`)
      .set('Authorization', `Bearer ${reactor.key}`)
      .send({ emoji: 'fire' })
      .expect(200);
    expect(await counts(), 'added').to.deep.equal({ fire: 1 });
    await reactor.agent.post(`/runs/${run.id}/react`).type('form').send({ _csrf: reactor.csrf, emoji: 'rocket' }).expect(303);
    expect(await counts(), 'changed on the page').to.deep.equal({ rocket: 1 });
    await request(ctx.app)
      .post(`/api/runs/${run.id}/react`)
      .set('Authorization', `Bearer ${reactor.key}`)
      .send({ emoji: null })
      .expect(200);
    expect(await counts(), 'taken back').to.deep.equal({});
  });

  it("follows an admin's verification of the submitter at once: the verified filter and the run's user", async () => {
    const run = await submit({ tokSOut: 56 });
    expect(await shown(run.id, '&verified=true')).to.deep.equal({ board: undefined, list: undefined });
    const verify = (verified: string) =>
      admin.agent.post(`/admin/users/${owner.id}/verification`).type('form').send({ verified, _csrf: admin.csrf }).expect(303);
    await verify('true');
    const verified = await shown(run.id, '&verified=true');
    expect(verified.board?.user, 'on the board').to.include({ verified: true });
    expect(verified.list?.user, 'in the list').to.include({ verified: true });
    await verify('false');
    expect(await shown(run.id, '&verified=true')).to.deep.equal({ board: undefined, list: undefined });
  });

  it("shows the submitter's new display name on their runs at once", async () => {
    const run = await submit({ tokSOut: 57 });
    expect((await shown(run.id)).board?.user).to.include({ displayName: `Display ${owner.username}` });
    await owner.agent.post('/settings/profile').type('form').send({ displayName: 'Renamed Owner', _csrf: owner.csrf }).expect(303);
    const renamed = await shown(run.id);
    expect(renamed.board?.user, 'on the board').to.include({ displayName: 'Renamed Owner' });
    expect(renamed.list?.user, 'in the list').to.include({ displayName: 'Renamed Owner' });
  });

  it("shows a model's update at once: a base catalogued by a run's submission adopts an earlier quant", async () => {
    await expectBaseCataloguedAtOnce(ctx, owner, async () => [(await submit({ hfId: fakeHubModels.dense, tokSOut: 150 })).id]);
  });
});

describe('Read your writes: a base catalogued by a report on it (notify)', function () {
  this.timeout(60_000);
  const ctx = useNotifyApp();
  let author: Account;
  before(async () => {
    author = await account(ctx, 'author');
  });

  it("shows the model's update at once: the quant it adopts is re-judged and in its tree", async () => {
    await expectBaseCataloguedAtOnce(ctx, author, async () => {
      await request(ctx.app)
        .post(`/api/models/${fakeHubModels.dense}/reports`)
        .set(bearer(author))
        .send({ title: 'The base', content: 'Catalogued by this report.' })
        .expect(201);
      return [];
    });
  });
});
