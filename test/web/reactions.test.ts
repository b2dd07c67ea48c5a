import { expect } from 'chai';
import request from 'supertest';
import { csrfFrom, useTestApp } from '../helpers/app.ts';
import { fakeHubModels } from '../helpers/fake-hub.ts';
import { account, submitRun, type Account } from '../helpers/moderation.ts';

// Issue 5 part 3, pages: reaction buttons on run rows and run pages; htmx swaps the bar
// with the new counts; signed-out visitors see the counts and a sign-in link.

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

interface Button {
  value: string;
  pressed: boolean;
  label: string;
  count: number | null;
}

/** The reaction bar of one run in a page or fragment. */
function barOf(html: string, runId: string): string {
  const match = new RegExp(`<div class="reaction-bar" id="reactions-${runId}">[\\s\\S]*?</div>`).exec(html);
  if (!match) throw new Error(`no reaction bar for ${runId}`);
  return match[0];
}

function buttonsOf(bar: string): Button[] {
  return [...bar.matchAll(/<button [^>]*name="emoji" value="([^"]*)" aria-pressed="(true|false)"[^>]*>([\s\S]*?)<\/button>/g)].map((m) => ({
    value: m[1]!,
    pressed: m[2] === 'true',
    label: /class="visually-hidden">([^<]+)</.exec(m[3]!)![1]!,
    count: /class="reaction-count">(\d+)</.test(m[3]!) ? Number(/class="reaction-count">(\d+)</.exec(m[3]!)![1]) : null,
  }));
}

/** The counts a signed-out reader sees: label -> count. */
function shownCounts(bar: string): Record<string, number> {
  return Object.fromEntries(
    [...bar.matchAll(/<span class="reaction" title="([^"]+)">[\s\S]*?class="reaction-count">(\d+)</g)].map((m) => [m[1]!, Number(m[2])]),
  );
}

const LABELS = ['Fire', 'Rocket', 'Hundred points', 'Brain', 'Chad'];

describe('reaction buttons (pages)', () => {
  const ctx = useTestApp({}, { fakeHub: true });
  let owner: Account;
  let alice: Account;
  let bob: Account;
  let admin: Account;
  let run: Record<string, any>;

  before(async () => {
    owner = await account(ctx, 'owner');
    alice = await account(ctx, 'alice');
    bob = await account(ctx, 'bob');
    admin = await account(ctx, 'boss', { admin: true });
    run = await submitRun(ctx, owner, { tokSOut: 77 });
  });

  const apiReact = (who: Account, emoji: string | null, id = run.id) =>
    request(ctx.app).post(`/api/runs/${id}/react`).set('Authorization', `Bearer ${who.key}`).send({ emoji }).expect(200);
  const formReact = (who: Account, body: Record<string, unknown>, id = run.id) =>
    who.agent
      .post(`/runs/${id}/react`)
      .type('form')
      .send({ _csrf: who.csrf, ...body });
  const htmxReact = (who: Account, body: Record<string, unknown>, id = run.id) => formReact(who, body, id).set('HX-Request', 'true');
  const storedCounts = async (id = run.id) => (await ctx.db('speed_test_runs').where({ id }).first('reaction_counts')).reaction_counts;
  const mine = async (who: Account, id = run.id) =>
    (await ctx.db('run_reactions').where({ run_kind: 'speed_test', run_id: id, user_id: who.id }).first('emoji'))?.emoji ?? null;

  beforeEach(async () => {
    await ctx.db('run_reactions').delete();
    await ctx.db('speed_test_runs').update({ reaction_counts: {} });
  });

  describe('signed in', () => {
    it('the run page shows five buttons posting to the run, the active one pressed and set to remove', async () => {
      await apiReact(alice, 'rocket');
      await apiReact(bob, 'rocket');
      const page = await alice.agent.get(`/runs/${run.id}`).expect(200);
      const bar = barOf(page.text, run.id);
      expect(bar).to.include(
        `<form class="reaction-form" method="post" action="/runs/${run.id}/react" hx-post="/runs/${run.id}/react" hx-target="closest .reaction-bar" hx-swap="outerHTML">`,
      );
      expect(bar).to.include(`<input type="hidden" name="_csrf" value="${alice.csrf}">`);
      expect(bar).to.include(`<input type="hidden" name="back" value="/runs/${run.id}">`);
      expect(buttonsOf(bar)).to.deep.equal([
        { value: 'fire', pressed: false, label: 'Fire', count: null },
        { value: '', pressed: true, label: 'Rocket', count: 2 },
        { value: '100', pressed: false, label: 'Hundred points', count: null },
        { value: 'brain', pressed: false, label: 'Brain', count: null },
        { value: 'chad', pressed: false, label: 'Chad', count: null },
      ]);
      expect(bar).to.include('🔥').and.include('🚀').and.include('💯').and.include('🧠').and.include('🗿');
      expect(bar).not.to.include('Sign in to react');

      // Another reader of the same page: the same counts, nothing pressed.
      const other = barOf((await bob.agent.get(`/runs/${run.id}`).expect(200)).text, run.id);
      expect(
        buttonsOf(other)
          .filter((b) => b.pressed)
          .map((b) => b.label),
      ).to.deep.equal(['Rocket']);
      await apiReact(bob, 'brain');
      const changed = buttonsOf(barOf((await bob.agent.get(`/runs/${run.id}`).expect(200)).text, run.id));
      expect(changed.find((b) => b.pressed)).to.deep.equal({ value: '', pressed: true, label: 'Brain', count: 1 });
      expect(changed.find((b) => b.label === 'Rocket')).to.deep.equal({ value: 'rocket', pressed: false, label: 'Rocket', count: 1 });
    });

    for (const [where, path] of [
      ['the leaderboard', () => '/'],
      ['the model page', () => `/models/${fakeHubModels.dense}`],
      ['the hardware page', () => `/hardware/${run.hardwareId}`],
      ['the submitter’s profile', () => `/u/${owner.username}`],
    ] as const) {
      it(`${where} shows the bar on the run’s row with the reader’s own reaction pressed`, async () => {
        await apiReact(alice, 'chad');
        const page = await alice.agent.get(path()).expect(200);
        const bar = barOf(page.text, run.id);
        const buttons = buttonsOf(bar);
        expect(buttons.map((b) => b.label)).to.deep.equal(LABELS);
        expect(buttons.filter((b) => b.pressed)).to.deep.equal([{ value: '', pressed: true, label: 'Chad', count: 1 }]);
        expect(bar).to.include(`<input type="hidden" name="back" value="${path()}">`);
        // Only the reader's own reaction is pressed.
        const forBob = buttonsOf(barOf((await bob.agent.get(path()).expect(200)).text, run.id));
        expect(forBob.filter((b) => b.pressed)).to.deep.equal([]);
        expect(forBob.find((b) => b.label === 'Chad')!.count).to.equal(1);
      });
    }

    it('an htmx click answers only the bar, with the new count and the button pressed', async () => {
      await apiReact(bob, 'fire');
      const res = await htmxReact(alice, { emoji: 'fire', back: '/?hfId=x' }).expect(200);
      expect(res.type).to.equal('text/html');
      expect(res.headers.vary).to.match(/HX-Request/);
      expect(res.text.trim()).to.match(new RegExp(`^<div class="reaction-bar" id="reactions-${run.id}">`));
      expect(res.text).not.to.include('<html').and.not.to.include('<table');
      expect(res.text.match(/class="reaction-bar"/g)).to.have.length(1);
      const buttons = buttonsOf(res.text);
      expect(buttons.find((b) => b.label === 'Fire')).to.deep.equal({ value: '', pressed: true, label: 'Fire', count: 2 });
      expect(buttons.filter((b) => b.pressed)).to.have.length(1);
      // The swapped bar keeps posting with the token and back to the page it is on.
      expect(res.text).to.include(`<input type="hidden" name="_csrf" value="${alice.csrf}">`);
      expect(res.text).to.include('<input type="hidden" name="back" value="/?hfId=x">');
      expect(await storedCounts()).to.deep.equal({ fire: 2 });
      expect(await mine(alice)).to.equal('fire');
    });

    it('clicking the pressed emoji (an empty value) removes the reaction', async () => {
      await apiReact(alice, 'brain');
      const res = await htmxReact(alice, { emoji: '' }).expect(200);
      const buttons = buttonsOf(res.text);
      expect(buttons.filter((b) => b.pressed)).to.deep.equal([]);
      expect(buttons.find((b) => b.label === 'Brain')).to.deep.equal({ value: 'brain', pressed: false, label: 'Brain', count: null });
      expect(await mine(alice)).to.equal(null);
      expect(await storedCounts()).to.deep.equal({});
    });

    it('without JavaScript the form post redirects 303 back to the page it came from', async () => {
      const res = await formReact(alice, { emoji: '100', back: `/u/${owner.username}?page=1` }).expect(303);
      expect(res.headers.location).to.equal(`/u/${owner.username}?page=1`);
      expect(await mine(alice)).to.equal('100');
      const page = await alice.agent.get(res.headers.location).expect(200);
      expect(buttonsOf(barOf(page.text, run.id)).find((b) => b.pressed)!.label).to.equal('Hundred points');
    });

    it('sends a missing or foreign back address to the run page instead', async () => {
      for (const back of [undefined, 'https://evil.example/', '//evil.example/x', '/\\evil.example', 'runs']) {
        const res = await formReact(alice, { emoji: 'fire', ...(back === undefined ? {} : { back }) }).expect(303);
        expect(res.headers.location, String(back)).to.equal(`/runs/${run.id}`);
      }
    });

    it('refuses a post without the CSRF token (403) and writes nothing', async () => {
      const res = await alice.agent.post(`/runs/${run.id}/react`).type('form').send({ emoji: 'fire' }).expect(403);
      expect(res.text).to.include('Invalid CSRF token');
      await alice.agent
        .post(`/runs/${run.id}/react`)
        .type('form')
        .send({ emoji: 'fire', _csrf: 'forged' })
        .set('HX-Request', 'true')
        .expect(403);
      expect(await mine(alice)).to.equal(null);
      expect(await storedCounts()).to.deep.equal({});
    });

    it('answers 400 for an emoji the buttons never send, and writes nothing', async () => {
      const page = await formReact(alice, { emoji: 'heart' }).expect(400);
      expect(page.text).to.include('Must be one of fire, rocket, 100, brain, chad, or null to remove your reaction');
      const fragment = await htmxReact(alice, { emoji: ['fire', 'rocket'] }).expect(400);
      expect(fragment.text).to.include('role="alert"').and.not.to.include('<html');
      await formReact(alice, {}).expect(400);
      expect(await mine(alice)).to.equal(null);
    });

    it('answers 404 for an unknown, malformed or rejected run', async () => {
      await formReact(alice, { emoji: 'fire' }, UNKNOWN_ID).expect(404);
      await formReact(alice, { emoji: 'fire' }, 'not-a-uuid').expect(404);
      const rejected = await submitRun(ctx, owner, { hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'RTX 4080', vramGb: 16 } });
      await apiReact(bob, 'fire', rejected.id);
      await admin.agent.post(`/admin/runs/${rejected.id}/reject`).type('form').send({ _csrf: admin.csrf, reason: 'spam' }).expect(303);
      await htmxReact(alice, { emoji: 'fire' }, rejected.id).expect(404);
      expect(await mine(alice, rejected.id)).to.equal(null);
      // The admin still sees the rejected run and its counts, but no buttons.
      const bar = barOf((await admin.agent.get(`/runs/${rejected.id}`).expect(200)).text, rejected.id);
      expect(bar).not.to.include('<form');
      expect(shownCounts(bar)).to.deep.equal({ Fire: 1 });
    });

    it('is for browser sessions: an API key is refused on the page route', async () => {
      await request(ctx.app)
        .post(`/runs/${run.id}/react`)
        .set('Authorization', `Bearer ${alice.key}`)
        .type('form')
        .send({ emoji: 'fire' })
        .expect(403);
      expect(await mine(alice)).to.equal(null);
    });
  });

  describe('signed out', () => {
    it('pages show the counts (the run page a sign-in link too), but no buttons or forms', async () => {
      await apiReact(alice, 'fire');
      await apiReact(bob, 'fire');
      await apiReact(owner, 'brain');
      for (const path of [
        '/',
        `/runs/${run.id}`,
        `/models/${fakeHubModels.dense}`,
        `/hardware/${run.hardwareId}`,
        `/u/${owner.username}`,
      ]) {
        const page = await request(ctx.app).get(path).expect(200);
        const bar = barOf(page.text, run.id);
        expect(shownCounts(bar), path).to.deep.equal({ Fire: 2, Brain: 1 });
        expect(bar).to.include('🔥').and.include('🧠').and.not.include('🚀');
        // Table rows stay one line: counts only; signing in to react is offered on the run page.
        if (path.startsWith('/runs/'))
          expect(bar).to.include(`<a class="reaction-signin" href="/signin?next=${encodeURIComponent(path)}">Sign in to react</a>`);
        else expect(bar, path).not.to.include('reaction-signin');
        expect(bar).not.to.include('<form').and.not.to.include('<button');
        expect(page.text).not.to.include(`action="/runs/${run.id}/react"`);
      }
    });

    it('a run without reactions shows only the sign-in link', async () => {
      const bar = barOf((await request(ctx.app).get(`/runs/${run.id}`).expect(200)).text, run.id);
      expect(shownCounts(bar)).to.deep.equal({});
      expect(bar).to.include('Sign in to react');
    });

    it('a post from a signed-out browser goes to sign-in and writes nothing', async () => {
      const anonymous = request.agent(ctx.app);
      const csrf = csrfFrom((await anonymous.get('/signin').expect(200)).text);
      const res = await anonymous.post(`/runs/${run.id}/react`).type('form').send({ emoji: 'fire', _csrf: csrf }).expect(303);
      expect(res.headers.location).to.equal(`/signin?next=${encodeURIComponent(`/runs/${run.id}/react`)}`);
      expect(await ctx.db('run_reactions').count('* as n').first()).to.deep.equal({ n: 0 });
    });
  });
});
