import { expect } from 'chai';
import request from 'supertest';
import { reactionEmojis, type ReactionEmoji } from '../../src/constants.ts';
import { revision3Profile } from '../../src/revisions.ts';
import { messages } from '../../src/messages.ts';
import { createOfflineServices } from '../../src/services/index.ts';
import { useTestApp } from '../helpers/app.ts';
import { expectValidationFailed } from '../helpers/assertions.ts';
import { account, submitRun, type Account } from '../helpers/moderation.ts';

// Contract: spec/interface.md, the alternative reaction endpoint `POST /api/runs/{id}/react`
// (session or Bearer key, `{ emoji: string|null }`, one reaction per user per run, null
// removes it) and the run fields `reactionCounts` and `myEmoji`; issue 5 part 3.

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
const RESULTS_PATH = revision3Profile.speedTests.resultsPath;

type Run = Record<string, any> & { id: string };

describe('reactions API: POST /api/runs/:id/react', () => {
  const ctx = useTestApp({}, { fakeHub: true });
  let owner: Account;
  let alice: Account;
  let bob: Account;
  let admin: Account;
  /** Two runs by owner on different hardware, so both are leaderboard rows. */
  let run: Run;
  let quiet: Run;

  before(async () => {
    owner = await account(ctx, 'owner');
    alice = await account(ctx, 'alice');
    bob = await account(ctx, 'bob');
    admin = await account(ctx, 'boss', { admin: true });
    run = (await submitRun(ctx, owner, { tokSOut: 80 })) as Run;
    quiet = (await submitRun(ctx, owner, { hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'RTX 3090', vramGb: 24 }, tokSOut: 20 })) as Run;
  });

  const withKey = (who: Account, id: string, body: unknown) =>
    request(ctx.app)
      .post(`/api/runs/${id}/react`)
      .set('Authorization', `Bearer ${who.key}`)
      .send(body as object);
  const withSession = (who: Account, id: string, body: unknown) =>
    who.agent
      .post(`/api/runs/${id}/react`)
      .set('X-CSRF-Token', who.csrf)
      .send(body as object);
  const storedReactions = (id: string) => ctx.db('run_reactions').where({ run_kind: 'speed_test', run_id: id }).orderBy('emoji');
  const storedCounts = async (id: string) => (await ctx.db('speed_test_runs').where({ id }).first('reaction_counts')).reaction_counts;

  /** Every reaction to `run` taken back, so each test starts from no reactions. */
  async function clearReactions() {
    await ctx.db('run_reactions').delete();
    await ctx.db('speed_test_runs').update({ reaction_counts: {} });
  }

  describe('add, change, remove', () => {
    before(clearReactions);

    it('adds a reaction and answers the counts and the caller’s own emoji', async () => {
      const res = await withKey(alice, run.id, { emoji: 'fire' }).expect(200);
      expect(res.body).to.deep.equal({ reactionCounts: { fire: 1 }, myEmoji: 'fire' });
      const rows = await storedReactions(run.id);
      expect(rows.map((r) => [r.user_id, r.emoji])).to.deep.equal([[alice.id, 'fire']]);
      expect(await storedCounts(run.id)).to.deep.equal({ fire: 1 });
    });

    it('changes the reaction: still one per user per run', async () => {
      const res = await withKey(alice, run.id, { emoji: 'rocket' }).expect(200);
      expect(res.body).to.deep.equal({ reactionCounts: { rocket: 1 }, myEmoji: 'rocket' });
      expect((await storedReactions(run.id)).map((r) => r.emoji)).to.deep.equal(['rocket']);
    });

    it('reacting again with the same emoji changes nothing', async () => {
      const res = await withKey(alice, run.id, { emoji: 'rocket' }).expect(200);
      expect(res.body).to.deep.equal({ reactionCounts: { rocket: 1 }, myEmoji: 'rocket' });
      expect(await storedReactions(run.id)).to.have.length(1);
    });

    it('removes it with null (and removing again is harmless)', async () => {
      const res = await withKey(alice, run.id, { emoji: null }).expect(200);
      expect(res.body).to.deep.equal({ reactionCounts: {}, myEmoji: null });
      expect(await storedReactions(run.id)).to.have.length(0);
      expect(await storedCounts(run.id)).to.deep.equal({});
      const again = await withKey(alice, run.id, { emoji: null }).expect(200);
      expect(again.body).to.deep.equal({ reactionCounts: {}, myEmoji: null });
    });

    it('accepts each of the five emojis', async () => {
      for (const emoji of reactionEmojis) {
        const res = await withKey(alice, quiet.id, { emoji }).expect(200);
        expect(res.body).to.deep.equal({ reactionCounts: { [emoji]: 1 }, myEmoji: emoji });
      }
      await withKey(alice, quiet.id, { emoji: null }).expect(200);
    });
  });

  describe('counts across users', () => {
    before(clearReactions);

    it('counts two users with the same emoji as 2, and splits them when one changes', async () => {
      await withKey(alice, run.id, { emoji: 'fire' }).expect(200);
      const both = await withSession(bob, run.id, { emoji: 'fire' }).expect(200);
      expect(both.body).to.deep.equal({ reactionCounts: { fire: 2 }, myEmoji: 'fire' });
      const split = await withSession(bob, run.id, { emoji: 'brain' }).expect(200);
      expect(split.body).to.deep.equal({ reactionCounts: { fire: 1, brain: 1 }, myEmoji: 'brain' });
      const third = await withKey(owner, run.id, { emoji: '100' }).expect(200);
      expect(third.body).to.deep.equal({ reactionCounts: { fire: 1, brain: 1, '100': 1 }, myEmoji: '100' });
      const removed = await withKey(owner, run.id, { emoji: null }).expect(200);
      expect(removed.body).to.deep.equal({ reactionCounts: { fire: 1, brain: 1 }, myEmoji: null });
    });

    it('keeps each run’s reactions apart', async () => {
      expect(await storedCounts(quiet.id)).to.deep.equal({});
      const res = await withKey(alice, quiet.id, { emoji: 'chad' }).expect(200);
      expect(res.body).to.deep.equal({ reactionCounts: { chad: 1 }, myEmoji: 'chad' });
      expect(await storedCounts(run.id)).to.deep.equal({ fire: 1, brain: 1 });
      await withKey(alice, quiet.id, { emoji: null }).expect(200);
    });
  });

  describe('myEmoji per caller in every read', () => {
    // alice: fire (Bearer key); bob: brain (session); anonymous: none. `quiet` has no reactions.
    before(async () => {
      await clearReactions();
      await withKey(alice, run.id, { emoji: 'fire' }).expect(200);
      await withSession(bob, run.id, { emoji: 'brain' }).expect(200);
    });

    type Caller = { name: string; get: (path: string) => request.Test; myEmoji: ReactionEmoji | null };
    const callers = (): Caller[] => [
      { name: 'a Bearer key', get: (path) => request(ctx.app).get(path).set('Authorization', `Bearer ${alice.key}`), myEmoji: 'fire' },
      { name: 'a session', get: (path) => bob.agent.get(path), myEmoji: 'brain' },
      { name: 'an anonymous reader', get: (path) => request(ctx.app).get(path), myEmoji: null },
    ];
    const expectedCounts = { fire: 1, brain: 1 };

    for (const index of [0, 1, 2]) {
      it(`${['a Bearer key', 'a session', 'an anonymous reader'][index]}: GET /api/leaderboard rows`, async () => {
        const caller = callers()[index]!;
        const res = await caller.get('/api/leaderboard').expect(200);
        const row = res.body.rows.find((r: Run) => r.id === run.id);
        const quietRow = res.body.rows.find((r: Run) => r.id === quiet.id);
        expect(row, 'the reacted run is a row').to.be.an('object');
        expect(row.reactionCounts).to.deep.equal(expectedCounts);
        expect(row.myEmoji).to.equal(caller.myEmoji);
        expect(quietRow.reactionCounts).to.deep.equal({});
        expect(quietRow.myEmoji).to.equal(null);
      });

      it(`${['a Bearer key', 'a session', 'an anonymous reader'][index]}: GET ${RESULTS_PATH} (list) and ${RESULTS_PATH}/:id`, async () => {
        const caller = callers()[index]!;
        const list = await caller.get(RESULTS_PATH).expect(200);
        const listed = list.body.benchmarks.find((r: Run) => r.id === run.id);
        expect(listed.reactionCounts).to.deep.equal(expectedCounts);
        expect(listed.myEmoji).to.equal(caller.myEmoji);
        expect(list.body.benchmarks.find((r: Run) => r.id === quiet.id).myEmoji).to.equal(null);

        const single = await caller.get(`${RESULTS_PATH}/${run.id}`).expect(200);
        expect(single.body.reactionCounts).to.deep.equal(expectedCounts);
        expect(single.body.myEmoji).to.equal(caller.myEmoji);
      });
    }

    it('follows a change at once in every read', async () => {
      await withKey(alice, run.id, { emoji: 'rocket' }).expect(200);
      const asAlice = (path: string) => request(ctx.app).get(path).set('Authorization', `Bearer ${alice.key}`).expect(200);
      const single = await asAlice(`${RESULTS_PATH}/${run.id}`);
      expect(single.body).to.include({ myEmoji: 'rocket' });
      expect(single.body.reactionCounts).to.deep.equal({ rocket: 1, brain: 1 });
      const row = (await asAlice('/api/leaderboard')).body.rows.find((r: Run) => r.id === run.id);
      expect(row.myEmoji).to.equal('rocket');
      expect(row.reactionCounts).to.deep.equal({ rocket: 1, brain: 1 });
      const anonymous = await request(ctx.app).get(`${RESULTS_PATH}/${run.id}`).expect(200);
      expect(anonymous.body.myEmoji).to.equal(null);
      expect(anonymous.body.reactionCounts).to.deep.equal({ rocket: 1, brain: 1 });
    });
  });

  describe('bad input', () => {
    before(clearReactions);

    const cases: [string, unknown, string[]][] = [
      ['an unknown emoji', { emoji: 'thumbsup' }, ['emoji']],
      ['an empty emoji', { emoji: '' }, ['emoji']],
      ['an emoji of the wrong type', { emoji: 5 }, ['emoji']],
      ['a missing emoji', {}, ['emoji']],
      ['an extra key', { emoji: 'fire', weight: 10 }, ['weight']],
    ];
    for (const [what, body, fields] of cases) {
      it(`answers 400 with the validation shape for ${what}, and writes nothing`, async () => {
        const res = await withKey(alice, run.id, body);
        expectValidationFailed(res, fields);
        expect(await storedReactions(run.id)).to.have.length(0);
        expect(await storedCounts(run.id)).to.deep.equal({});
      });
    }

    it('names the allowed emojis in the message', async () => {
      const res = await withKey(alice, run.id, { emoji: 'heart' }).expect(400);
      expect(res.body.details.fieldErrors.emoji[0]).to.equal(
        'Must be one of fire, rocket, 100, brain, chad, or null to remove your reaction',
      );
    });
  });

  describe('runs that cannot be reacted to', () => {
    before(clearReactions);

    it('answers 404 for an unknown run id', async () => {
      const res = await withKey(alice, UNKNOWN_ID, { emoji: 'fire' }).expect(404);
      expect(res.body).to.deep.equal({ error: 'Speed-test run not found' });
    });

    it('answers 404 for a malformed run id', async () => {
      const res = await withKey(alice, 'not-a-uuid', { emoji: 'fire' }).expect(404);
      expect(res.body).to.deep.equal({ error: 'Speed-test run not found' });
      expect(await ctx.db('run_reactions').count('* as n').first()).to.deep.equal({ n: 0 });
    });

    it('answers 404 for a rejected run, and again once it is restored it takes reactions', async () => {
      const rejected = await submitRun(ctx, owner, { hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'RTX 4080', vramGb: 16 }, tokSOut: 30 });
      await admin.agent.post(`/admin/runs/${rejected.id}/reject`).type('form').send({ _csrf: admin.csrf, reason: 'spam' }).expect(303);
      const res = await withKey(alice, rejected.id, { emoji: 'fire' }).expect(404);
      expect(res.body).to.deep.equal({ error: 'Speed-test run not found' });
      await withSession(bob, rejected.id, { emoji: null }).expect(404);
      expect(await storedReactions(rejected.id)).to.have.length(0);

      await admin.agent.post(`/admin/runs/${rejected.id}/restore`).type('form').send({ _csrf: admin.csrf }).expect(303);
      const restored = await withKey(alice, rejected.id, { emoji: 'fire' }).expect(200);
      expect(restored.body).to.deep.equal({ reactionCounts: { fire: 1 }, myEmoji: 'fire' });
    });
  });

  describe('authentication', () => {
    before(clearReactions);

    it('answers 401 without credentials', async () => {
      const res = await request(ctx.app).post(`/api/runs/${run.id}/react`).send({ emoji: 'fire' }).expect(401);
      expect(res.body).to.deep.equal({ error: messages.authenticationRequired });
    });

    it('answers 401 for an invalid Bearer key, without falling back to the session', async () => {
      await alice.agent
        .post(`/api/runs/${run.id}/react`)
        .set('Authorization', `Bearer bhk_${'0'.repeat(40)}`)
        .set('X-CSRF-Token', alice.csrf)
        .send({ emoji: 'fire' })
        .expect(401);
      expect(await storedReactions(run.id)).to.have.length(0);
    });

    it('refuses a session call without the CSRF token (403) and takes it with the token', async () => {
      const refused = await alice.agent.post(`/api/runs/${run.id}/react`).send({ emoji: 'fire' }).expect(403);
      expect(refused.body).to.deep.equal({ error: 'Invalid CSRF token' });
      await alice.agent.post(`/api/runs/${run.id}/react`).set('X-CSRF-Token', 'wrong').send({ emoji: 'fire' }).expect(403);
      expect(await storedReactions(run.id)).to.have.length(0);
      const res = await withSession(alice, run.id, { emoji: 'fire' }).expect(200);
      expect(res.body).to.deep.equal({ reactionCounts: { fire: 1 }, myEmoji: 'fire' });
    });

    it('needs no CSRF token with a Bearer key', async () => {
      const res = await request(ctx.app)
        .post(`/api/runs/${run.id}/react`)
        .set('Authorization', `Bearer ${bob.key}`)
        .send({ emoji: 'fire' })
        .expect(200);
      expect(res.body).to.deep.equal({ reactionCounts: { fire: 2 }, myEmoji: 'fire' });
    });
  });

  describe('concurrent reactions', () => {
    /** 20 readers with API keys, created directly (sign-up through the form is limited per address). */
    let crowd: { id: string; key: string }[];

    before(async () => {
      await clearReactions();
      const stamp = Date.now().toString(36);
      const users = await ctx
        .db('users')
        .insert(
          Array.from({ length: 20 }, (_, i) => ({ username: `crowd${stamp}${i}`, display_name: `Crowd ${i}`, password_hash: 'unused' })),
        )
        .returning('id');
      crowd = [];
      for (const { id } of users)
        crowd.push({ id, key: (await createOfflineServices(ctx.db, revision3Profile).apiKeys.create(id, { name: 'crowd' })).key });
    });

    const react = (key: string, emoji: ReactionEmoji | null) =>
      request(ctx.app).post(`/api/runs/${run.id}/react`).set('Authorization', `Bearer ${key}`).send({ emoji });

    it('counts 20 simultaneous reactions exactly', async () => {
      const emojiOf = (i: number) => reactionEmojis[i % reactionEmojis.length]!;
      const answers = await Promise.all(crowd.map((u, i) => react(u.key, emojiOf(i))));
      for (const [i, res] of answers.entries()) {
        expect(res.status).to.equal(200);
        expect(res.body.myEmoji).to.equal(emojiOf(i));
      }
      const expected = Object.fromEntries(reactionEmojis.map((e) => [e, 4]));
      expect(await storedCounts(run.id)).to.deep.equal(expected);
      expect(await storedReactions(run.id)).to.have.length(20);
      // Some answer saw every reaction: the last one to commit.
      const sorted = (counts: object) => JSON.stringify(Object.entries(counts).sort());
      expect(answers.some((res) => sorted(res.body.reactionCounts) === sorted(expected))).to.equal(true);
      const single = await request(ctx.app).get(`${RESULTS_PATH}/${run.id}`).expect(200);
      expect(single.body.reactionCounts).to.deep.equal(expected);
    });

    it('counts simultaneous changes and removals exactly', async () => {
      // Even-numbered users take theirs back; odd-numbered ones switch to fire.
      const answers = await Promise.all(crowd.map((u, i) => react(u.key, i % 2 === 0 ? null : 'fire')));
      expect(answers.map((res) => res.status)).to.deep.equal(crowd.map(() => 200));
      expect(await storedCounts(run.id)).to.deep.equal({ fire: 10 });
      const row = (await request(ctx.app).get('/api/leaderboard').expect(200)).body.rows.find((r: Run) => r.id === run.id);
      expect(row.reactionCounts).to.deep.equal({ fire: 10 });
    });
  });
});
