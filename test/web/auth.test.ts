import { expect } from 'chai';
import type { Express } from 'express';
import request from 'supertest';
import { csrfFrom, signedUpAgent, TEST_PASSWORD, uniqueUsername, useTestApp, type Agent } from '../helpers/app.ts';

const THIRTY_DAYS_MS = 30 * 24 * 60 * 60_000;
const WRONG_CREDENTIALS = 'Wrong username or password.';
const SIGN_IN_REDIRECT = '/signin?next=%2Fsettings%2Fkeys';

type Res = Awaited<ReturnType<Agent['get']>>;

/** The `bh.sid` Set-Cookie line of a response, if any. */
function sessionSetCookie(res: Res): string | undefined {
  return (res.get('Set-Cookie') ?? []).find((line) => line.startsWith('bh.sid='));
}

/** The raw (signed, URL-encoded) cookie value, as a browser would send it back. */
function sessionCookieValue(res: Res): string {
  const line = sessionSetCookie(res);
  if (!line) throw new Error('response set no bh.sid cookie');
  return line.slice('bh.sid='.length).split(';')[0]!;
}

/** The session id inside a signed cookie value (`s:<sid>.<signature>`). */
function sidOf(cookieValue: string): string {
  const match = /^s:([^.]+)\./.exec(decodeURIComponent(cookieValue));
  if (!match) throw new Error(`not a signed session cookie: ${cookieValue}`);
  return match[1]!;
}

function hiddenField(html: string, name: string): string | undefined {
  return new RegExp(`<input type="hidden" name="${name}" value="([^"]*)">`).exec(html)?.[1];
}

function alertText(html: string): string | undefined {
  return /<div class="alert alert-error" role="alert">([^<]*)<\/div>/.exec(html)?.[1];
}

/** A fresh browser: loads the sign-in form, then posts it. */
async function signInFresh(app: Express, fields: Record<string, string>) {
  const agent = request.agent(app);
  const form = await agent.get('/signin').expect(200);
  const res = await agent
    .post('/signin')
    .type('form')
    .send({ _csrf: csrfFrom(form.text), ...fields });
  return { agent, form, res };
}

/** A fresh browser: loads the sign-up form, then posts it. */
async function signUpFresh(app: Express, fields: Record<string, string>) {
  const agent = request.agent(app);
  const form = await agent.get('/signup').expect(200);
  const res = await agent
    .post('/signup')
    .type('form')
    .send({ _csrf: csrfFrom(form.text), ...fields });
  return { agent, form, res };
}

/** An account page sends this browser to the sign-in form. */
async function expectSignedOut(agent: Agent) {
  expectSignInRedirect(await agent.get('/settings/keys'));
}

function expectSignInRedirect(res: Res) {
  expect(res.status).to.equal(303);
  expect(res.headers.location).to.equal(SIGN_IN_REDIRECT);
}

function expectCsrfPage(res: Res) {
  expect(res.status).to.equal(403);
  expect(res.headers['content-type']).to.match(/^text\/html/);
  expect(res.text).to.include('Invalid CSRF token');
  expect(res.text).to.include('The form had expired or came from another site');
}

describe('Auth forms', () => {
  const ctx = useTestApp();

  for (const path of ['/signup', '/signin']) {
    it(`GET ${path} renders a form whose hidden _csrf equals the page's csrf-token meta`, async () => {
      const res = await request(ctx.app)
        .get(path)
        .expect(200)
        .expect('Content-Type', /text\/html/);
      expect(res.text).to.include(`<form class="stack" method="post" action="${path}"`);
      expect(hiddenField(res.text, '_csrf')).to.equal(csrfFrom(res.text)).and.to.have.length.greaterThan(20);
    });

    it(`GET ${path} sets an HttpOnly, SameSite=Lax bh.sid cookie that lasts 30 days`, async () => {
      const res = await request(ctx.app).get(path).expect(200);
      const line = sessionSetCookie(res)!;
      expect(line, 'Set-Cookie bh.sid').to.be.a('string');
      expect(line).to.match(/;\s*HttpOnly/i);
      expect(line).to.match(/;\s*SameSite=Lax/i);
      expect(line).to.match(/;\s*Path=\//i);
      const maxAge = /Max-Age=(\d+)/i.exec(line)?.[1];
      const expires = /Expires=([^;]+)/i.exec(line)?.[1];
      const lifetimeMs = maxAge ? Number(maxAge) * 1000 : Date.parse(expires!) - Date.now();
      expect(lifetimeMs).to.be.closeTo(THIRTY_DAYS_MS, 60_000);
    });
  }

  it('sends a signed-out visitor back to a long address without its query, and keeps every Location short', async () => {
    // The fuzz suite's case: a request line near Node's 16 KB limit, encoded again into `next`,
    // made a Location header over 16 KB that clients refuse to parse.
    const huge = `/submit/hardware-fields?hardware.gpuCount=${'%C3%A9'.repeat(2000)}`;
    const res = await request(ctx.app).get(huge).expect(303);
    expect(res.headers.location).to.equal('/signin?next=%2Fsubmit%2Fhardware-fields');
    const hugePath = `/settings/setups/${'a'.repeat(2100)}/edit`;
    expect((await request(ctx.app).get(hugePath).expect(303)).headers.location).to.equal('/signin');
    const short = await request(ctx.app).get('/settings/setups?hwClass=CPU_ONLY').expect(303);
    expect(short.headers.location).to.equal(`/signin?next=${encodeURIComponent('/settings/setups?hwClass=CPU_ONLY')}`);
  });

  it('GET /signin keeps a same-site next in the form and drops an off-site one', async () => {
    const local = await request(ctx.app).get('/signin?next=%2Fsettings%2Fkeys').expect(200);
    expect(hiddenField(local.text, 'next')).to.equal('/settings/keys');
    const offSite = await request(ctx.app).get('/signin?next=%2F%2Fevil.example').expect(200);
    expect(hiddenField(offSite.text, 'next')).to.equal('/');
  });
});

describe('Sign-up', () => {
  const ctx = useTestApp();

  it('creates the user with an argon2id hash, redirects 303 to / and signs the browser in', async () => {
    const username = uniqueUsername('new');
    const { agent, res } = await signUpFresh(ctx.app, { username, displayName: 'New Person', password: TEST_PASSWORD });
    expect(res.status).to.equal(303);
    expect(res.headers.location).to.equal('/');

    const row = await ctx.db('users').where({ username }).first();
    expect(row.display_name).to.equal('New Person');
    expect(row.password_hash).to.match(/^\$argon2id\$/);
    expect(row.password_hash).to.not.include(TEST_PASSWORD);

    const home = await agent.get('/').expect(200);
    expect(home.text).to.include(`@${username}`);
    expect(home.text).to.include('>Sign out</button>');
    await agent.get('/settings/keys').expect(200);
  });

  it('accepts the shortest allowed username and password (3 and 10 characters)', async () => {
    const username = `a${Date.now().toString(36).slice(-2)}`;
    const { res } = await signUpFresh(ctx.app, { username, password: '0123456789' });
    expect(res.status).to.equal(303);
    expect(await ctx.db('users').where({ username }).first()).to.have.property('display_name', username);
  });

  it('redirects to a same-site next and to / for an off-site next', async () => {
    const local = await signUpFresh(ctx.app, { username: uniqueUsername(), password: TEST_PASSWORD, next: '/settings/keys' });
    expect(local.res.status).to.equal(303);
    expect(local.res.headers.location).to.equal('/settings/keys');
    const offSite = await signUpFresh(ctx.app, { username: uniqueUsername(), password: TEST_PASSWORD, next: 'https://evil.example/' });
    expect(offSite.res.headers.location).to.equal('/');
  });

  it('rejects a 9-character password with 400, the message and the username kept', async () => {
    const username = uniqueUsername('short');
    const { agent, res } = await signUpFresh(ctx.app, { username, password: '123456789' });
    expect(res.status).to.equal(400);
    expect(res.text).to.include('Password must be at least 10 characters');
    expect(res.text).to.match(new RegExp(`name="username" type="text" value="${username}"`));
    expect(await ctx.db('users').where({ username }).first()).to.equal(undefined);
    await expectSignedOut(agent);
  });

  for (const username of ['ab', 'has space', 'x'.repeat(33), 'dots.not.ok']) {
    it(`rejects the username ${JSON.stringify(username)} with 400 and the rule`, async () => {
      const { res } = await signUpFresh(ctx.app, { username, password: TEST_PASSWORD });
      expect(res.status).to.equal(400);
      expect(res.text).to.include('Username must be 3-32 characters: letters, digits, _ or -');
      const [{ count }] = await ctx.db('users').whereRaw('lower(username) = lower(?)', [username.trim()]).count({ count: '*' });
      expect(Number(count)).to.equal(0);
    });
  }

  it('answers 409 "That username is taken" for a username that differs only in case', async () => {
    const upper = uniqueUsername('Alice');
    expect((await signUpFresh(ctx.app, { username: upper, password: TEST_PASSWORD })).res.status).to.equal(303);
    const { res } = await signUpFresh(ctx.app, { username: upper.toLowerCase(), password: TEST_PASSWORD });
    expect(res.status).to.equal(409);
    expect(res.text).to.include('That username is taken');
    const rows = await ctx.db('users').whereRaw('lower(username) = ?', [upper.toLowerCase()]);
    expect(rows.map((r: { username: string }) => r.username)).to.deep.equal([upper]);
  });
});

describe('CSRF protection of the auth forms', () => {
  const ctx = useTestApp();

  for (const [label, token] of [
    ['a missing', undefined],
    ['a wrong', 'not-the-token'],
  ] as const) {
    it(`POST /signup with ${label} _csrf is a 403 page and creates no user`, async () => {
      const agent = request.agent(ctx.app);
      await agent.get('/signup').expect(200);
      const username = uniqueUsername('csrf');
      const res = await agent
        .post('/signup')
        .type('form')
        .send({ username, password: TEST_PASSWORD, ...(token ? { _csrf: token } : {}) });
      expectCsrfPage(res);
      expect(await ctx.db('users').where({ username }).first()).to.equal(undefined);
    });
  }

  it("POST /signup with another session's token is a 403 page", async () => {
    const victim = request.agent(ctx.app);
    await victim.get('/signup').expect(200);
    const otherToken = csrfFrom((await request(ctx.app).get('/signup').expect(200)).text);
    const username = uniqueUsername('cross');
    expectCsrfPage(await victim.post('/signup').type('form').send({ username, password: TEST_PASSWORD, _csrf: otherToken }));
    expect(await ctx.db('users').where({ username }).first()).to.equal(undefined);
  });

  it('POST /signin without the token is a 403 page and does not sign in, even with the right password', async () => {
    const { username } = await signedUpAgent(ctx.app);
    const agent = request.agent(ctx.app);
    await agent.get('/signin').expect(200);
    expectCsrfPage(await agent.post('/signin').type('form').send({ username, password: TEST_PASSWORD }));
    expectCsrfPage(await agent.post('/signin').type('form').send({ username, password: TEST_PASSWORD, _csrf: 'wrong' }));
    await expectSignedOut(agent);
  });

  it('POST /signout without or with a wrong token is a 403 page and the session survives', async () => {
    const { agent } = await signedUpAgent(ctx.app);
    expectCsrfPage(await agent.post('/signout').type('form').send({}));
    expectCsrfPage(await agent.post('/signout').type('form').send({ _csrf: 'wrong' }));
    await agent.get('/settings/keys').expect(200);
  });

  it('a session-authenticated JSON call under /api without the token gets 403 { error: "Invalid CSRF token" }', async () => {
    const { agent } = await signedUpAgent(ctx.app);
    const res = await agent.post('/api/keys').send({ name: 'no token' }).expect(403);
    expect(res.body).to.deep.equal({ error: 'Invalid CSRF token' });
  });
});

describe('Sign-in', () => {
  const ctx = useTestApp();
  let username: string;
  before(async () => {
    ({ username } = await signedUpAgent(ctx.app));
  });

  it('answers an unknown user and a wrong password with the same 401 message and the form again', async () => {
    const unknown = await signInFresh(ctx.app, { username: uniqueUsername('ghost'), password: TEST_PASSWORD });
    const wrong = await signInFresh(ctx.app, { username, password: 'not the password' });
    for (const { res, agent } of [unknown, wrong]) {
      expect(res.status).to.equal(401);
      expect(res.headers['content-type']).to.match(/^text\/html/);
      expect(res.text).to.include('action="/signin"');
      expect(hiddenField(res.text, '_csrf')).to.equal(csrfFrom(res.text));
      await expectSignedOut(agent);
    }
    expect(alertText(unknown.res.text)).to.equal(WRONG_CREDENTIALS);
    expect(alertText(wrong.res.text)).to.equal(alertText(unknown.res.text));
    expect(wrong.res.text).to.match(new RegExp(`name="username" type="text" value="${username}"`));
  });

  it('signs in with the right password: 303 to /, then the account pages open', async () => {
    const { agent, res } = await signInFresh(ctx.app, { username, password: TEST_PASSWORD });
    expect(res.status).to.equal(303);
    expect(res.headers.location).to.equal('/');
    const page = await agent.get('/settings/keys').expect(200);
    expect(page.text).to.include(`@${username}`);
  });

  it('regenerates the session id and the CSRF token; the old cookie no longer authenticates', async () => {
    const agent = request.agent(ctx.app);
    const form = await agent.get('/signin').expect(200);
    const oldCookie = sessionCookieValue(form);
    const oldToken = csrfFrom(form.text);

    const res = await agent.post('/signin').type('form').send({ username, password: TEST_PASSWORD, _csrf: oldToken }).expect(303);
    const newCookie = sessionCookieValue(res);
    expect(sidOf(newCookie)).to.not.equal(sidOf(oldCookie));

    const page = await agent.get('/settings/keys').expect(200);
    expect(csrfFrom(page.text)).to.not.equal(oldToken);

    expectSignInRedirect(await request(ctx.app).get('/settings/keys').set('Cookie', `bh.sid=${oldCookie}`));
    expect(
      await ctx
        .db('sessions')
        .where({ sid: sidOf(oldCookie) })
        .first(),
    ).to.equal(undefined);
  });

  const redirects: [string, string][] = [
    ['https://evil.example/', '/'],
    ['//evil.example', '/'],
    ['/\\evil.example', '/'],
    ['/settings/keys', '/settings/keys'],
  ];
  for (const [next, location] of redirects) {
    it(`redirects next=${next} to ${location}`, async () => {
      const { res } = await signInFresh(ctx.app, { username, password: TEST_PASSWORD, next });
      expect(res.status).to.equal(303);
      expect(res.headers.location).to.equal(location);
    });
  }
});

describe('Sign-out', () => {
  const ctx = useTestApp();

  it('destroys the session: 303 to /, cookie cleared, row gone, account pages redirect to sign-in', async () => {
    const { username } = await signedUpAgent(ctx.app);
    const { agent, res: signIn } = await signInFresh(ctx.app, { username, password: TEST_PASSWORD });
    const sid = sidOf(sessionCookieValue(signIn));
    expect(await ctx.db('sessions').where({ sid }).first()).to.not.equal(undefined);
    const csrf = csrfFrom((await agent.get('/settings/keys').expect(200)).text);

    const res = await agent.post('/signout').type('form').send({ _csrf: csrf });
    expect(res.status).to.equal(303);
    expect(res.headers.location).to.equal('/');
    const cleared = sessionSetCookie(res)!;
    expect(cleared).to.match(/^bh\.sid=;/);
    expect(Date.parse(/Expires=([^;]+)/i.exec(cleared)![1]!)).to.be.below(Date.now());

    expect(await ctx.db('sessions').where({ sid }).first()).to.equal(undefined);
    await expectSignedOut(agent);
    const home = await agent.get('/').expect(200);
    expect(home.text).to.not.include(`@${username}`);
    expect(home.text).to.include('href="/signin"');
  });
});

describe('Layout', () => {
  const ctx = useTestApp();

  it('shows Sign in / Sign up, the csrf meta and hx-headers on a signed-out page with a session', async () => {
    const res = await request(ctx.app).get('/signin').expect(200);
    const token = csrfFrom(res.text);
    expect(res.text).to.include(`<body hx-headers:inherited='{"X-CSRF-Token": "${token}"}'>`);
    expect(res.text).to.match(/<a href="\/signin"[^>]*>Sign in<\/a>/);
    expect(res.text).to.match(/<a href="\/signup"[^>]*>Sign up<\/a>/);
    expect(res.text).to.not.include('Sign out');
  });

  it('gives an anonymous reader of / no session cookie and no csrf meta', async () => {
    const res = await request(ctx.app).get('/').expect(200);
    expect(sessionSetCookie(res)).to.equal(undefined);
    expect(res.text).to.not.include('name="csrf-token"');
    expect(res.text).to.include('>Sign in</a>');
  });

  it('shows the username and a Sign out form carrying the token on every page when signed in', async () => {
    const { agent, csrf, username } = await signedUpAgent(ctx.app);
    for (const path of ['/', '/settings/keys', '/signin-typo']) {
      const res = await agent.get(path);
      expect(res.status, path).to.equal(path === '/signin-typo' ? 404 : 200);
      expect(csrfFrom(res.text), path).to.equal(csrf);
      expect(res.text).to.include(`hx-headers:inherited='{"X-CSRF-Token": "${csrf}"}'`);
      expect(res.text).to.include(`<a href="/u/${username}" class="muted">@${username}</a>`);
      expect(res.text).to.include('<a href="/settings/profile"');
      expect(res.text).to.match(
        /<form class="inline" method="post" action="\/signout">\s*<input type="hidden" name="_csrf" value="([^"]+)">/,
      );
      expect(hiddenField(res.text, '_csrf')).to.equal(csrf);
      expect(res.text).to.not.match(/>Sign in<\/a>|>Sign up<\/a>/);
    }
  });

  it('links the stylesheet and htmx, and both are served with the right types', async () => {
    const page = await request(ctx.app).get('/').expect(200);
    const cssAddress = /<link rel="stylesheet" href="(\/static\/css\/site\.[0-9a-f]{12}\.css)">/.exec(page.text)?.[1];
    const htmxAddress = /<script src="(\/static\/vendor\/htmx\/htmx\.min\.[0-9a-f]{12}\.js)" defer><\/script>/.exec(page.text)?.[1];
    expect(cssAddress, 'fingerprinted stylesheet').to.be.a('string');
    expect(htmxAddress, 'fingerprinted htmx').to.be.a('string');
    const css = await request(ctx.app).get(cssAddress!).expect(200);
    expect(css.headers['content-type']).to.match(/^text\/css/);
    const js = await request(ctx.app).get(htmxAddress!).expect(200);
    expect(js.headers['content-type']).to.match(/javascript/);
    expect(js.text.length).to.be.greaterThan(1000);
  });

  it("sends a CSP with script-src 'self' and style-src 'self' and no inline allowances", async () => {
    const res = await request(ctx.app).get('/signin').expect(200);
    const csp = res.headers['content-security-policy']!;
    expect(csp).to.include("script-src 'self'");
    expect(csp).to.include("style-src 'self'");
    expect(csp).to.not.include('unsafe-inline');
  });

  it('answers an unknown page with a 404 HTML page', async () => {
    const res = await request(ctx.app).get('/no-such-page').expect(404);
    expect(res.headers['content-type']).to.match(/^text\/html/);
    expect(res.text).to.include('Page not found');
    expect(res.text).to.include('There is nothing at this address.');
  });
});

describe('Sign-in rate limit (10 per 15 minutes per username and IP)', () => {
  const ctx = useTestApp();
  // These tests are about the per-username count; the per-address one has its own tests below.
  beforeEach(() => ctx.db('rate_limit_counters').where({ bucket: 'signin-address' }).delete());

  it('answers the 11th attempt with 429, a message and Retry-After, even with the right password', async () => {
    const { username } = await signedUpAgent(ctx.app);
    const agent = request.agent(ctx.app);
    const _csrf = csrfFrom((await agent.get('/signin').expect(200)).text);
    for (let i = 1; i <= 10; i += 1) {
      const res = await agent
        .post('/signin')
        .type('form')
        .send({ username, password: `wrong-${i}-password`, _csrf });
      expect(res.status, `attempt ${i}`).to.equal(401);
    }
    const blocked = await agent.post('/signin').type('form').send({ username, password: TEST_PASSWORD, _csrf });
    expect(blocked.status).to.equal(429);
    expect(blocked.headers['content-type']).to.match(/^text\/html/);
    expect(alertText(blocked.text)).to.match(/^Too many sign-in attempts\. Try again in 15 minutes\.$/);
    const retryAfter = Number(blocked.headers['retry-after']);
    expect(retryAfter).to.be.within(1, 15 * 60);
    await expectSignedOut(agent);

    // The counter is per username: it ignores case, and other names from this IP are unaffected.
    const upper = await agent.post('/signin').type('form').send({ username: username.toUpperCase(), password: 'x', _csrf });
    expect(upper.status).to.equal(429);
    const other = await agent
      .post('/signin')
      .type('form')
      .send({ username: uniqueUsername('other'), password: 'x', _csrf });
    expect(other.status).to.equal(401);
  });

  it('lets a different username from the same IP sign in while one is blocked', async () => {
    const blockedUser = uniqueUsername('blocked');
    const agent = request.agent(ctx.app);
    const _csrf = csrfFrom((await agent.get('/signin').expect(200)).text);
    for (let i = 0; i < 11; i += 1)
      await agent.post('/signin').type('form').send({ username: blockedUser, password: 'wrong-password', _csrf });
    const { username } = await signedUpAgent(ctx.app);
    const { res } = await signInFresh(ctx.app, { username, password: TEST_PASSWORD });
    expect(res.status).to.equal(303);
  });

  it('resets the counter after a successful sign-in', async () => {
    const { username } = await signedUpAgent(ctx.app);
    const first = request.agent(ctx.app);
    const firstCsrf = csrfFrom((await first.get('/signin').expect(200)).text);
    for (let i = 0; i < 5; i += 1) {
      await first.post('/signin').type('form').send({ username, password: 'wrong-password', _csrf: firstCsrf }).expect(401);
    }
    await first.post('/signin').type('form').send({ username, password: TEST_PASSWORD, _csrf: firstCsrf }).expect(303);

    const second = request.agent(ctx.app);
    const _csrf = csrfFrom((await second.get('/signin').expect(200)).text);
    for (let i = 1; i <= 10; i += 1) {
      const res = await second.post('/signin').type('form').send({ username, password: 'wrong-password', _csrf });
      expect(res.status, `attempt ${i} after the reset`).to.equal(401);
    }
  });
});

describe('Failed sign-ins per address across usernames (30 per 15 minutes)', () => {
  const ctx = useTestApp();

  it('answers password spraying over 31 usernames with 429 and Retry-After, even for the right password', async () => {
    const { username } = await signedUpAgent(ctx.app);
    const agent = request.agent(ctx.app);
    const _csrf = csrfFrom((await agent.get('/signin').expect(200)).text);
    for (let i = 1; i <= 30; i += 1) {
      const res = await agent
        .post('/signin')
        .type('form')
        .send({ username: uniqueUsername(`spray${i}`), password: 'Winter2026!', _csrf });
      expect(res.status, `attempt ${i}`).to.equal(401);
    }
    const sprayed = await agent
      .post('/signin')
      .type('form')
      .send({ username: uniqueUsername('spray31'), password: 'Winter2026!', _csrf });
    expect(sprayed.status).to.equal(429);
    expect(alertText(sprayed.text)).to.equal('Too many failed sign-ins from your address. Try again in 15 minutes.');
    expect(Number(sprayed.headers['retry-after'])).to.be.within(1, 15 * 60);
    const rightPassword = await agent.post('/signin').type('form').send({ username, password: TEST_PASSWORD, _csrf });
    expect(rightPassword.status).to.equal(429);
    await expectSignedOut(agent);
  });

  it('does not count successful sign-ins against the address', async () => {
    const { username } = await signedUpAgent(ctx.app);
    await ctx.db('rate_limit_counters').where({ bucket: 'signin-address' }).delete();
    for (let i = 1; i <= 35; i += 1) {
      const { res } = await signInFresh(ctx.app, { username, password: TEST_PASSWORD });
      expect(res.status, `sign-in ${i}`).to.equal(303);
    }
    const counter = await ctx.db('rate_limit_counters').where({ bucket: 'signin-address' }).first('count');
    expect(counter?.count ?? 0).to.equal(0);
  });
});

describe('Sign-up rate limit (30 per hour per IP)', () => {
  const ctx = useTestApp();

  it('accepts 30 sign-ups from one IP and answers the 31st with 429 and Retry-After', async function () {
    this.timeout(120_000);
    for (let i = 1; i <= 30; i += 1) {
      const { res } = await signUpFresh(ctx.app, { username: uniqueUsername('bulk'), password: TEST_PASSWORD });
      expect(res.status, `sign-up ${i}`).to.equal(303);
    }
    const username = uniqueUsername('late');
    const { res, agent } = await signUpFresh(ctx.app, { username, password: TEST_PASSWORD });
    expect(res.status).to.equal(429);
    expect(alertText(res.text)).to.match(/^Too many sign-ups from your address\. Try again in \d+ minutes?\.$/);
    expect(Number(res.headers['retry-after'])).to.be.within(1, 60 * 60);
    expect(res.text).to.match(new RegExp(`value="${username}"`));
    expect(await ctx.db('users').where({ username }).first()).to.equal(undefined);
    const [{ count }] = await ctx.db('users').count({ count: '*' });
    expect(Number(count)).to.equal(30);
    await expectSignedOut(agent);
  });
});
