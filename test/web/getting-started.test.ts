import { expect } from 'chai';
import request from 'supertest';
import { createKey, csrfFrom, signedUpAgent, TEST_PASSWORD, uniqueUsername, useTestApp } from '../helpers/app.ts';

/** The first-steps panel's three ways in. */
function expectFirstSteps(html: string) {
  expect(html).to.include('class="first-steps"');
  const panel = html.slice(html.indexOf('class="first-steps"'));
  expect(panel).to.match(/<a class="button[^"]*" href="\/submit">Submit a run<\/a>/);
  expect(panel).to.include('<a class="button" href="/settings/keys">Create an API key</a>');
  expect(panel).to.include('<a class="button" href="/docs/agents">Agent guide</a>');
}

describe('getting started: the way in to a first run', () => {
  const ctx = useTestApp();

  it('shows "Submit a run" in the header to signed-out visitors too', async () => {
    for (const path of ['/', '/models', '/methodology']) {
      const res = await request(ctx.app).get(path).expect(200);
      expect(res.text, path).to.match(/<nav class="site-nav"[\s\S]*<a href="\/submit" class="nav-submit">Submit a run<\/a>[\s\S]*<\/nav>/);
    }
  });

  it('explains submitting to a signed-out visitor at /submit, with sign-up, sign-in and the agent guide', async () => {
    const res = await request(ctx.app).get('/submit').expect(200);
    expect(res.text).to.include('<h1>Submit a run</h1>');
    expect(res.text).to.include('href="/signup?next=%2Fsubmit">Sign up and submit</a>');
    expect(res.text).to.include('href="/signin?next=%2Fsubmit">Sign in</a>');
    expect(res.text).to.include('href="/docs/agents">agent guide</a>');
    expect(res.text).to.not.include('id="submit-form"');
    expect(res.text).to.match(/<a href="\/submit" class="nav-submit" aria-current="page">/);
  });

  it('still refuses an API key at /submit (a browser page), and gives a signed-in browser the form', async () => {
    const { agent, csrf } = await signedUpAgent(ctx.app);
    const { key } = await createKey(agent, csrf);
    const keyed = await request(ctx.app).get('/submit').set('Authorization', `Bearer ${key}`);
    expect(keyed.status).to.equal(403);
    const form = await agent.get('/submit').expect(200);
    expect(form.text).to.include('id="submit-form"');
  });

  it('shows the first-steps panel on the first page after sign-up, once', async () => {
    const agent = request.agent(ctx.app);
    const form = await agent.get('/signup').expect(200);
    const username = uniqueUsername('fresh');
    const signUp = await agent
      .post('/signup')
      .type('form')
      .send({ _csrf: csrfFrom(form.text), username, password: TEST_PASSWORD })
      .expect(303);
    const first = await agent.get(signUp.headers.location!).expect(200);
    expectFirstSteps(first.text);
    expect(first.text).to.include(`Welcome, ${username}! Your first steps`);
    const again = await agent.get('/').expect(200);
    expect(again.text).to.not.include('class="first-steps"');
  });

  it('does not spend the panel on an htmx fragment, and never shows it at sign-in', async () => {
    const agent = request.agent(ctx.app);
    const form = await agent.get('/signup').expect(200);
    const username = uniqueUsername('frag');
    await agent
      .post('/signup')
      .type('form')
      .send({ _csrf: csrfFrom(form.text), username, password: TEST_PASSWORD, next: '/settings/runs' })
      .expect(303);
    const fragment = await agent.get('/settings/runs').set('HX-Request', 'true').expect(200);
    expect(fragment.text).to.not.include('first-steps');
    expectFirstSteps((await agent.get('/settings/runs').expect(200)).text);

    const signIn = request.agent(ctx.app);
    const signInForm = await signIn.get('/signin').expect(200);
    await signIn
      .post('/signin')
      .type('form')
      .send({ _csrf: csrfFrom(signInForm.text), username, password: TEST_PASSWORD })
      .expect(303);
    expect((await signIn.get('/').expect(200)).text).to.not.include('class="first-steps"');
  });

  it("turns empty states into next steps: own and others' empty profiles, keys, setups, the board", async () => {
    const { agent, username } = await signedUpAgent(ctx.app);
    const own = await agent.get(`/u/${username}`).expect(200);
    expect(own.text).to.include('No approved runs yet: your first one will show here.');
    expectFirstSteps(own.text);
    const other = await request(ctx.app).get(`/u/${username}`).expect(200);
    expect(other.text).to.not.include('class="first-steps"');
    expect(other.text).to.match(
      /No approved runs yet\. <a href="\/">See what others measured<\/a>, or <a href="\/submit">submit a run of your own<\/a>/,
    );

    const keys = await agent.get('/settings/keys').expect(200);
    expect(keys.text).to.match(/<p class="empty">No keys yet\.[^<]*<a href="\/docs\/agents">agent guide<\/a>/);
    const setups = await agent.get('/settings/setups').expect(200);
    expect(setups.text).to.match(/<p class="empty">No setups yet\.[\s\S]*?<a href="\/submit">submit form<\/a>/);
    const board = await request(ctx.app).get('/').expect(200);
    expect(board.text).to.match(
      /<p class="empty">No runs match these filters\. <a href="\/">Reset the filters<\/a>, or measure it yourself and <a href="\/submit">submit a run<\/a>/,
    );
  });
});
