import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { plainMessage, SETUP_FIELD_LABELS } from '../../src/web/field-messages.ts';
import request from 'supertest';
import { fakeHubModels } from '../helpers/fake-hub.ts';
import { signedUpAgent, useTestApp, type Agent, type TestContext } from '../helpers/app.ts';

type Browser = { agent: Agent; csrf: string; username: string };

/** Creates a setup through the API for a signed-in browser. */
async function apiSetup(browser: Browser, body: Record<string, unknown>): Promise<Record<string, any>> {
  const res = await browser.agent.post('/api/setups').set('X-CSRF-Token', browser.csrf).send(body);
  if (res.status !== 201) throw new Error(`setup creation failed with ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

const setupRow = (ctx: TestContext, id: string) => ctx.db('setups').where({ id }).first();

async function setupsOf(ctx: TestContext, username: string) {
  const user = await ctx.db('users').whereRaw('lower(username) = lower(?)', [username]).first('id');
  return ctx.db('setups').where({ user_id: user.id }).orderBy('created_at');
}

/** The new-setup form as a browser posts it: every input, the empty ones as ''. */
function setupForm(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    name: 'Form rig',
    description: '',
    isDefault: 'true',
    hwClass: 'DISCRETE_GPU',
    gpuName: 'NVIDIA GeForce RTX 3090',
    gpuCount: '2',
    vramGb: '24',
    cpu: '',
    ramGb: '128',
    os: 'linux',
    powerWatts: '',
    engineName: 'vllm',
    engineVersion: '0.8.3',
    backend: 'cuda',
    quantization: 'AWQ',
    contextLength: '16384',
    batchSize: '',
    commandSnippet: 'vllm serve m --tensor-parallel-size 2',
    gpuLayers: '',
    tensorParallel: '2',
    concurrency: '8',
    kvCacheDtype: 'fp8',
    flashAttn: 'true',
    prefixCaching: 'false',
    specDecoding: '',
    specModel: '',
    specNumTokens: '',
    temperature: '0.6',
    ...overrides,
  };
}

/** A value attribute of the input with this name (in this fragment of HTML). */
function inputValue(html: string, name: string): string | undefined {
  const input = new RegExp(`<input[^>]*name="${name.replace('.', '\\.')}"[^>]*>`).exec(html)?.[0];
  return input ? /value="([^"]*)"/.exec(input)?.[1] : undefined;
}

function selectedOption(html: string, name: string): string | undefined {
  const select = new RegExp(`<select[^>]*name="${name.replace('.', '\\.')}"[^>]*>([\\s\\S]*?)</select>`).exec(html)?.[1];
  return select ? /<option value="([^"]*)" selected>/.exec(select)?.[1] : undefined;
}

describe('saved setups in the pages', () => {
  const ctx = useTestApp({}, { fakeHub: true });
  let alice: Browser;
  let bob: Browser;

  before(async () => {
    alice = await signedUpAgent(ctx.app);
    bob = await signedUpAgent(ctx.app);
  });

  const form = (browser: Browser, path: string, fields: Record<string, string>, htmx = false) => {
    const req = browser.agent
      .post(path)
      .type('form')
      .send({ ...fields, _csrf: browser.csrf });
    return htmx ? req.set('HX-Request', 'true') : req;
  };

  describe('/settings/setups', () => {
    it('sends a signed-out visitor to sign in and back', async () => {
      const res = await request(ctx.app).get('/settings/setups').expect(303);
      expect(res.headers.location).to.equal('/signin?next=%2Fsettings%2Fsetups');
    });

    it('has a Setups link next to API keys in the navigation of signed-in users', async () => {
      const keys = await alice.agent.get('/settings/keys').expect(200);
      expect(keys.text).to.match(/>API keys<\/a>\s*<a href="\/settings\/setups">Setups<\/a>/);
      const page = await alice.agent.get('/settings/setups').expect(200);
      expect(page.text).to.include('<a href="/settings/setups" aria-current="page">Setups</a>');
      expect((await request(ctx.app).get('/').expect(200)).text).not.to.include('href="/settings/setups"');
    });

    it('lists the user’s setups, the default first, with their actions, and the new-setup form', async () => {
      const other = await apiSetup(alice, {
        name: 'Laptop',
        hwClass: 'UNIFIED',
        chipVendor: 'Apple',
        chipFamily: 'M3',
        chipVariant: 'Max',
        unifiedMemoryGb: 64,
        engineName: 'mlx',
      });
      const main = await apiSetup(alice, {
        name: 'Desk rig',
        isDefault: true,
        hwClass: 'DISCRETE_GPU',
        gpuName: 'NVIDIA GeForce RTX 4090',
        vramGb: 24,
        engineName: 'llama.cpp',
        quantization: 'Q4_K_M',
        gpuLayers: 99,
      });
      await apiSetup(bob, { name: 'Bobs secret box' });
      const res = await alice.agent.get('/settings/setups').expect(200);
      expect(res.text).to.include('<h1>Saved setups</h1>');
      expect(res.text.indexOf(`id="setup-${main.id}"`)).to.be.greaterThan(-1);
      expect(res.text.indexOf(`id="setup-${main.id}"`)).to.be.lessThan(res.text.indexOf(`id="setup-${other.id}"`));
      expect(res.text).to.match(/Desk rig <span class="badge badge-ok">default<\/span>/);
      expect(res.text).to.include('NVIDIA GeForce RTX 4090 · 24 GB');
      expect(res.text).to.include('Apple M3 Max · 64 GB');
      expect(res.text).to.include('<code>gpuLayers=99</code>');
      expect(res.text).to.include(`href="/submit?setup=${other.id}"`);
      expect(res.text).to.include(`hx-get="/settings/setups/${other.id}/edit" hx-target="closest article" hx-swap="outerHTML"`);
      expect(res.text).to.include(`action="/settings/setups/${other.id}/default"`);
      expect(res.text).not.to.include(`action="/settings/setups/${main.id}/default"`);
      expect(res.text).to.include(`hx-post="/settings/setups/${other.id}/delete" hx-target="closest article" hx-swap="delete"`);
      expect(res.text).not.to.include('Bobs secret box');
      expect(res.text).to.include(
        '<form class="stack setup-form" method="post" action="/settings/setups" hx-post="/settings/setups" hx-target="#setups-panel"',
      );
      expect(res.text).to.match(/<select id="f-hwClass" name="hwClass"[^>]*hx-get="\/settings\/setups\/new\/hardware-fields"/);
      expect(res.text).to.include('<datalist id="gpu-names">');
    });

    it('creates a setup from a plain form post (303), converting numbers and booleans like the API', async () => {
      const res = await form(bob, '/settings/setups', setupForm()).expect(303);
      expect(res.headers.location).to.equal('/settings/setups');
      const [, created] = await setupsOf(ctx, bob.username);
      expect(created).to.include({ name: 'Form rig', description: null, is_default: true });
      expect(created.config).to.deep.equal({
        hwClass: 'DISCRETE_GPU',
        gpuName: 'NVIDIA GeForce RTX 3090',
        gpuCount: 2,
        vramGb: 24,
        ramGb: 128,
        os: 'linux',
        engineName: 'vllm',
        engineVersion: '0.8.3',
        backend: 'cuda',
        quantization: 'AWQ',
        contextLength: 16384,
        commandSnippet: 'vllm serve m --tensor-parallel-size 2',
        tensorParallel: 2,
        concurrency: 8,
        kvCacheDtype: 'fp8',
        flashAttn: true,
        prefixCaching: false,
        temperature: 0.6,
      });
      const page = await bob.agent.get('/settings/setups').expect(200);
      expect(page.text).to.include(`id="setup-${created.id}"`);
    });

    it('answers an htmx create with the #setups-panel fragment holding the new setup (201)', async () => {
      const res = await form(bob, '/settings/setups', setupForm({ name: 'htmx rig', isDefault: '' }), true).expect(201);
      expect(res.text).not.to.include('<html');
      expect(res.text.trimStart()).to.match(/^<section id="setups-panel"/);
      expect(res.text).to.include('Setup “htmx rig” saved.');
      expect(res.text).to.match(/<h3>htmx rig<\/h3>/);
      expect(res.headers.vary).to.match(/HX-Request/i);
    });

    it('shows the API’s validation errors inline with the typed values (400) and writes nothing', async () => {
      const before = (await setupsOf(ctx, alice.username)).length;
      const fields = setupForm({ name: '', vramGb: 'lots', temperature: '500', gpuName: '' });
      const res = await form(alice, '/settings/setups', fields).expect(400);
      expect(res.text).to.include('<html');
      expect(res.text).to.match(/<p class="field-error" id="f-name-error">Name is required<\/p>/);
      expect(res.text).to.match(/name="vramGb"[^>]*value="lots"[^>]*aria-invalid="true"/);
      expect(res.text).to.match(/name="temperature"[^>]*aria-invalid="true"/);
      // The messages the API gives for the same values, in the form's plain words.
      const api = await alice.agent
        .post('/api/setups')
        .set('X-CSRF-Token', alice.csrf)
        .send({ name: '', vramGb: 'lots', temperature: 500 })
        .expect(400);
      for (const field of ['name', 'vramGb', 'temperature']) {
        const plain = api.body.details.fieldErrors[field]
          .map((message: string) => plainMessage(field, message, SETUP_FIELD_LABELS))
          .join(' ');
        expect(res.text).to.include(`id="f-${field}-error">${plain}</p>`);
      }
      expect(res.text).to.include('id="f-vramGb-error">Type a number, like 42.5.</p>');
      expect((await setupsOf(ctx, alice.username)).length).to.equal(before);
    });

    it('shows the class rule inline: a GPU setup needs its GPU and VRAM', async () => {
      const res = await form(alice, '/settings/setups', setupForm({ name: 'no gpu', gpuName: '', vramGb: '' }), true).expect(400);
      expect(res.text).to.match(/<p class="field-error" id="f-gpuName-error">Type the GPU’s name, like NVIDIA GeForce RTX 4090\.<\/p>/);
      expect(res.text).to.match(/<p class="field-error" id="f-vramGb-error">Type how much memory one GPU has, in GB\.<\/p>/);
    });

    it('answers a name the user already has with 409 and the message on the name field', async () => {
      await apiSetup(alice, { name: 'Taken Name' });
      const res = await form(alice, '/settings/setups', setupForm({ name: 'taken name', isDefault: '' })).expect(409);
      expect(res.text).to.include('<p class="field-error" id="f-name-error">You already have a setup with this name</p>');
      expect(inputValue(res.text, 'name')).to.equal('taken name');
    });

    it('switches the hardware inputs by class (htmx fragment), ids kept apart per form', async () => {
      const unified = await alice.agent
        .get('/settings/setups/new/hardware-fields')
        .query({ hwClass: 'UNIFIED' })
        .set('HX-Request', 'true')
        .expect(200);
      expect(unified.text).not.to.include('<html');
      expect(unified.text).to.include('<div class="setup-hardware" id="f-hardware">');
      expect(unified.text).to.include('name="chipVariant"');
      expect(unified.text).not.to.include('name="gpuName"');
      const id = randomUUID();
      const cpu = await alice.agent
        .get(`/settings/setups/${id}/hardware-fields`)
        .query({ hwClass: 'CPU_ONLY' })
        .set('HX-Request', 'true')
        .expect(200);
      expect(cpu.text).to.include(`id="s-${id}-hardware"`);
      expect(cpu.text).to.include(`id="s-${id}-cpu"`);
      const noJs = await alice.agent.get('/settings/setups').query({ hwClass: 'CPU_ONLY' }).expect(200);
      expect(noJs.text).to.match(/<input id="f-ramGb" name="ramGb"[^>]*required/);
    });

    describe('editing inline', () => {
      let setup: Record<string, any>;
      beforeEach(async () => {
        setup = await apiSetup(alice, {
          name: `Edit me ${randomUUID().slice(0, 6)}`,
          hwClass: 'DISCRETE_GPU',
          gpuName: 'NVIDIA GeForce RTX 4080',
          gpuCount: 2,
          vramGb: 16,
          engineName: 'llama.cpp',
          quantization: 'Q8_0',
          gpuLayers: 40,
          topK: 40,
          flashAttn: true,
        });
      });

      it('answers the htmx edit request with the card as a filled form', async () => {
        const res = await alice.agent.get(`/settings/setups/${setup.id}/edit`).set('HX-Request', 'true').expect(200);
        expect(res.text).not.to.include('<html');
        expect(res.text.trimStart()).to.match(new RegExp(`^<article class="card setup-row editing" id="setup-${setup.id}">`));
        expect(res.text).to.include(`hx-post="/settings/setups/${setup.id}" hx-target="closest article" hx-swap="outerHTML"`);
        expect(inputValue(res.text, 'gpuName')).to.equal('NVIDIA GeForce RTX 4080');
        expect(inputValue(res.text, 'gpuLayers')).to.equal('40');
        // A flag the form has no input of its own for is still shown, so it can be changed.
        expect(inputValue(res.text, 'topK')).to.equal('40');
        expect(selectedOption(res.text, 'flashAttn')).to.equal('true');
        expect(selectedOption(res.text, 'engineName')).to.equal('llama.cpp');
        expect(res.text).to.include(`id="s-${setup.id}-gpuName"`);
        expect(res.text).to.include(`hx-get="/settings/setups/${setup.id}" hx-target="closest article"`);
        expect(res.headers.vary).to.match(/HX-Request/i);
      });

      it('opens the same editor inside the full page without JavaScript', async () => {
        const res = await alice.agent.get(`/settings/setups/${setup.id}/edit`).expect(200);
        expect(res.text).to.include('<html');
        expect(res.text).to.include(`<article class="card setup-row editing" id="setup-${setup.id}">`);
        expect(res.text).to.include(`action="/settings/setups/${setup.id}"`);
      });

      it('saves an htmx edit and answers the updated card; empty inputs clear, inputs left out stay', async () => {
        const fields = {
          name: 'Edited rig',
          hwClass: 'DISCRETE_GPU',
          gpuName: 'NVIDIA GeForce RTX 4080',
          gpuCount: '',
          vramGb: '16',
          engineName: 'llama.cpp',
          quantization: 'Q6_K',
          gpuLayers: '99',
          flashAttn: '',
        };
        const res = await form(alice, `/settings/setups/${setup.id}`, fields, true).expect(200);
        expect(res.text.trimStart()).to.match(new RegExp(`^<article class="card setup-row" id="setup-${setup.id}">`));
        expect(res.text).to.include('<h3>Edited rig</h3>');
        expect(res.text).to.include('<code>gpuLayers=99</code>');
        const row = await setupRow(ctx, setup.id);
        expect(row.name).to.equal('Edited rig');
        expect(row.config).to.deep.include({ quantization: 'Q6_K', gpuLayers: 99, topK: 40 });
        expect(row.config).not.to.have.any.keys('gpuCount', 'flashAttn');
      });

      it('clears the other class’s fields when the form switches class', async () => {
        const fields = { name: setup.name, hwClass: 'CPU_ONLY', cpu: 'AMD EPYC 9654', ramGb: '768', os: '' };
        await form(alice, `/settings/setups/${setup.id}`, fields, true).expect(200);
        const row = await setupRow(ctx, setup.id);
        expect(row.config).to.deep.include({ hwClass: 'CPU_ONLY', cpu: 'AMD EPYC 9654', ramGb: 768, engineName: 'llama.cpp' });
        expect(row.config).not.to.have.any.keys('gpuName', 'gpuCount', 'vramGb');
      });

      it('answers a bad htmx edit with the editor and inline errors (400), changing nothing', async () => {
        const res = await form(
          alice,
          `/settings/setups/${setup.id}`,
          { name: '', hwClass: 'DISCRETE_GPU', gpuName: 'X', vramGb: '-4', gpuLayers: 'all' },
          true,
        ).expect(400);
        expect(res.text.trimStart()).to.match(/^<article class="card setup-row editing"/);
        expect(res.text).to.include(`<p class="field-error" id="s-${setup.id}-name-error">Name is required</p>`);
        expect(res.text).to.include(`<p class="field-error" id="s-${setup.id}-vramGb-error">Must be more than 0.</p>`);
        expect(res.text).to.include(`<p class="field-error" id="s-${setup.id}-gpuLayers-error">Type a number, like 42.5.</p>`);
        expect(inputValue(res.text, 'gpuLayers')).to.equal('all');
        const row = await setupRow(ctx, setup.id);
        expect(row.name).to.equal(setup.name);
        expect(row.config.vramGb).to.equal(16);
      });

      it('saves a plain form edit with a 303, and shows a bad one on the full page (400)', async () => {
        const ok = await form(alice, `/settings/setups/${setup.id}`, { name: 'Plain edit', description: 'now described' }).expect(303);
        expect(ok.headers.location).to.equal('/settings/setups');
        expect(await setupRow(ctx, setup.id)).to.include({ name: 'Plain edit', description: 'now described' });
        const bad = await form(alice, `/settings/setups/${setup.id}`, { name: 'Plain edit', contextLength: '0' }).expect(400);
        expect(bad.text).to.include('<html');
        expect(bad.text).to.include(`<p class="field-error" id="s-${setup.id}-contextLength-error">Must be 1 or more.</p>`);
      });

      it('answers the htmx Cancel with the plain card', async () => {
        const res = await alice.agent.get(`/settings/setups/${setup.id}`).set('HX-Request', 'true').expect(200);
        expect(res.text.trimStart()).to.match(new RegExp(`^<article class="card setup-row" id="setup-${setup.id}">`));
        expect((await alice.agent.get(`/settings/setups/${setup.id}`).expect(303)).headers.location).to.equal('/settings/setups');
      });
    });

    it('makes a setup the default: the htmx panel shows it first with the badge; the plain form redirects', async () => {
      const first = await apiSetup(alice, { name: 'Default one', isDefault: true });
      const second = await apiSetup(alice, { name: 'Default two' });
      const res = await form(alice, `/settings/setups/${second.id}/default`, {}, true).expect(200);
      expect(res.text.trimStart()).to.match(/^<section id="setups-panel"/);
      expect(res.text).to.include('“Default two” is now your default setup.');
      expect(res.text.indexOf(`id="setup-${second.id}"`)).to.be.lessThan(res.text.indexOf(`id="setup-${first.id}"`));
      expect(res.text).to.match(/Default two <span class="badge badge-ok">default<\/span>/);
      expect((await setupRow(ctx, first.id)).is_default).to.equal(false);
      const plain = await form(alice, `/settings/setups/${first.id}/default`, {}).expect(303);
      expect(plain.headers.location).to.equal('/settings/setups');
      expect((await setupRow(ctx, first.id)).is_default).to.equal(true);
      expect((await setupRow(ctx, second.id)).is_default).to.equal(false);
    });

    it('deletes over htmx with an empty 200, and without htmx with a 303', async () => {
      const one = await apiSetup(alice, { name: 'Delete over htmx' });
      const two = await apiSetup(alice, { name: 'Delete plainly' });
      const res = await form(alice, `/settings/setups/${one.id}/delete`, {}, true).expect(200);
      expect(res.text).to.equal('');
      expect(await setupRow(ctx, one.id)).to.equal(undefined);
      const plain = await form(alice, `/settings/setups/${two.id}/delete`, {}).expect(303);
      expect(plain.headers.location).to.equal('/settings/setups');
      expect(await setupRow(ctx, two.id)).to.equal(undefined);
    });

    it('answers 404 for another user’s setup on every page action and leaves it as it was', async () => {
      const alices = await apiSetup(alice, { name: 'Not for Bob' });
      await bob.agent.get(`/settings/setups/${alices.id}/edit`).expect(404);
      await bob.agent.get(`/settings/setups/${alices.id}`).set('HX-Request', 'true').expect(404);
      await form(bob, `/settings/setups/${alices.id}`, { name: 'Bob was here' }).expect(404);
      await form(bob, `/settings/setups/${alices.id}/default`, {}).expect(404);
      await form(bob, `/settings/setups/${alices.id}/delete`, {}).expect(404);
      await form(bob, '/settings/setups/not-a-uuid/delete', {}).expect(404);
      expect(await setupRow(ctx, alices.id)).to.include({ name: 'Not for Bob', is_default: false });
    });

    it('refuses every form post without the CSRF token (403) and changes nothing', async () => {
      const target = await apiSetup(alice, { name: 'CSRF target' });
      const before = (await setupsOf(ctx, alice.username)).length;
      const posts = [
        alice.agent
          .post('/settings/setups')
          .type('form')
          .send(setupForm({ name: 'forged' })),
        alice.agent.post(`/settings/setups/${target.id}`).type('form').send({ name: 'forged' }),
        alice.agent.post(`/settings/setups/${target.id}/default`).type('form').send({}),
        alice.agent.post(`/settings/setups/${target.id}/delete`).type('form').set('HX-Request', 'true').send({ _csrf: 'wrong' }),
      ];
      for (const res of await Promise.all(posts)) expect(res.status).to.equal(403);
      expect((await setupsOf(ctx, alice.username)).length).to.equal(before);
      expect(await setupRow(ctx, target.id)).to.include({ name: 'CSRF target', is_default: false });
    });
  });

  describe('/submit and its setup picker', () => {
    let carol: Browser;
    let desk: Record<string, any>;
    let laptop: Record<string, any>;

    before(async () => {
      carol = await signedUpAgent(ctx.app);
      desk = await apiSetup(carol, {
        name: 'Desk 4090',
        isDefault: true,
        hwClass: 'DISCRETE_GPU',
        gpuName: 'NVIDIA GeForce RTX 4090',
        gpuCount: 2,
        vramGb: 24,
        engineName: 'llama.cpp',
        quantization: 'Q4_K_M',
        contextLength: 8192,
        commandSnippet: './llama-server -m m.gguf -ngl 99',
        gpuLayers: 99,
        flashAttn: true,
        topK: 40,
      });
      laptop = await apiSetup(carol, {
        name: 'Laptop',
        hwClass: 'UNIFIED',
        chipVendor: 'Apple',
        chipFamily: 'M4',
        chipVariant: 'Max',
        unifiedMemoryGb: 128,
        engineName: 'mlx',
      });
    });

    it('fills the form from the default setup and offers the picker', async () => {
      const res = await carol.agent.get('/submit').expect(200);
      expect(inputValue(res.text, 'hardware.gpuName')).to.equal('NVIDIA GeForce RTX 4090');
      expect(inputValue(res.text, 'hardware.gpuCount')).to.equal('2');
      expect(inputValue(res.text, 'hardware.vramGb')).to.equal('24');
      expect(inputValue(res.text, 'quantization')).to.equal('Q4_K_M');
      expect(inputValue(res.text, 'contextLength')).to.equal('8192');
      expect(inputValue(res.text, 'engineFlags.gpuLayers')).to.equal('99');
      expect(inputValue(res.text, 'engineFlags.topK')).to.equal('40');
      expect(selectedOption(res.text, 'engineName')).to.equal('llama.cpp');
      expect(selectedOption(res.text, 'engineFlags.flashAttn')).to.equal('true');
      expect(res.text).to.include('>./llama-server -m m.gguf -ngl 99</textarea>');
      expect(res.text).to.match(
        /<select id="f-setup" name="setup"[^>]*hx-get="\/submit" hx-include="this" hx-target="#submit-form" hx-swap="outerHTML"/,
      );
      expect(selectedOption(res.text, 'setup')).to.equal(desk.id);
      expect(res.text).to.include(`<option value="${laptop.id}">Laptop</option>`);
    });

    it('answers the picker’s htmx request with the form alone, filled from the chosen setup', async () => {
      const res = await carol.agent.get('/submit').query({ setup: laptop.id }).set('HX-Request', 'true').expect(200);
      expect(res.text).not.to.include('<html');
      // The form posts back the setup it was filled from, so a refused submission keeps it chosen in the picker.
      expect(res.text.trimStart()).to.match(
        new RegExp(`^<form class="stack submit-form" method="post" action="/submit\\?setup=${laptop.id}" id="submit-form"`),
      );
      const refused = await carol.agent
        .post(`/submit?setup=${laptop.id}`)
        .type('form')
        .send({ _csrf: carol.csrf, 'hardware.hwClass': 'UNIFIED' })
        .expect(400);
      expect(refused.text).to.match(new RegExp(`<option value="${laptop.id}" selected>Laptop</option>`));
      expect(res.text).to.include('name="hardware.chipVariant"');
      expect(inputValue(res.text, 'hardware.chipVariant')).to.equal('Max');
      expect(inputValue(res.text, 'hardware.unifiedMemoryGb')).to.equal('128');
      expect(res.text).not.to.include('name="hardware.gpuName"');
      expect(selectedOption(res.text, 'engineName')).to.equal('mlx');
      expect(res.headers.vary).to.match(/HX-Request/i);
    });

    it('works without JavaScript too: ?setup= picks one, an empty choice gives a blank form', async () => {
      const chosen = await carol.agent.get('/submit').query({ setup: laptop.id }).expect(200);
      expect(chosen.text).to.include('<html');
      expect(selectedOption(chosen.text, 'setup')).to.equal(laptop.id);
      expect(inputValue(chosen.text, 'hardware.chipFamily')).to.equal('M4');
      const blank = await carol.agent.get('/submit').query({ setup: '' }).expect(200);
      expect(inputValue(blank.text, 'hardware.gpuName')).to.equal(undefined);
      expect(selectedOption(blank.text, 'engineName')).to.equal('');
    });

    it('answers another user’s or a malformed setup id with 404', async () => {
      await bob.agent.get('/submit').query({ setup: laptop.id }).expect(404);
      await carol.agent.get('/submit').query({ setup: 'nope' }).expect(404);
    });

    it('offers a link to save a setup instead of the picker to a user without setups', async () => {
      const res = await bob.agent.get('/submit').expect(200);
      const fresh = await signedUpAgent(ctx.app);
      const empty = await fresh.agent.get('/submit').expect(200);
      expect(empty.text).not.to.include('name="setup"');
      expect(empty.text).to.include('<a href="/settings/setups">Save a setup</a>');
      expect(res.text).to.include('name="setup"');
    });

    it('submits the form as the default setup filled it, every flag included', async () => {
      const page = await carol.agent.get('/submit').expect(200);
      const fields: Record<string, string> = {
        hfId: fakeHubModels.dense,
        tokSOut: '120',
        ttftMs: '80',
        'hardware.hwClass': 'DISCRETE_GPU',
        'hardware.gpuName': inputValue(page.text, 'hardware.gpuName')!,
        'hardware.gpuCount': inputValue(page.text, 'hardware.gpuCount')!,
        'hardware.vramGb': inputValue(page.text, 'hardware.vramGb')!,
        engineName: 'llama.cpp',
        quantization: inputValue(page.text, 'quantization')!,
        contextLength: inputValue(page.text, 'contextLength')!,
        'engineFlags.commandSnippet': './llama-server -m m.gguf -ngl 99',
        'engineFlags.gpuLayers': '99',
        'engineFlags.flashAttn': 'true',
        'engineFlags.topK': inputValue(page.text, 'engineFlags.topK')!,
      };
      const res = await form(carol, '/submit', fields).expect(303);
      const runId = res.headers.location!.split('/').pop();
      const run = await ctx.db('speed_test_runs').where({ id: runId }).first();
      expect(run.engine_flags).to.deep.include({ gpuLayers: 99, flashAttn: true, topK: 40 });
      expect(run.context_length).to.equal(8192);
    });
  });

  describe('"save as setup" on a run page', () => {
    let runPath: string;
    let dave: Browser;

    before(async () => {
      dave = await signedUpAgent(ctx.app);
      ctx.clock.advance(120_000);
      const res = await form(dave, '/submit', {
        hfId: fakeHubModels.dense,
        quantization: 'Q5_K_M',
        engineName: 'llama.cpp',
        engineVersion: 'b4600',
        backend: 'cuda',
        'hardware.hwClass': 'DISCRETE_GPU',
        'hardware.gpuName': 'NVIDIA GeForce RTX 4090',
        'hardware.vramGb': '24',
        'hardware.gpuCount': '2',
        'hardware.cpu': 'AMD Ryzen 9 7950X',
        tokSOut: '99',
        contextLength: '4096',
        'engineFlags.commandSnippet': './llama-server -m m.gguf -ngl 99 -fa on -np 4',
      }).expect(303);
      runPath = res.headers.location!;
    });

    it('offers the form to the submitter only', async () => {
      const own = await dave.agent.get(runPath).expect(200);
      expect(own.text).to.include('<h2>Save as a setup</h2>');
      expect(own.text).to.include(`hx-post="${runPath}/setup" hx-target="#save-setup" hx-swap="outerHTML"`);
      expect((await alice.agent.get(runPath).expect(200)).text).not.to.include('Save as a setup');
      expect((await request(ctx.app).get(runPath).expect(200)).text).not.to.include('Save as a setup');
    });

    it('saves the run’s hardware, engine and flags under the given name (303 without JavaScript)', async () => {
      const res = await form(dave, `${runPath}/setup`, { name: 'From my run', isDefault: 'true' }).expect(303);
      expect(res.headers.location).to.equal('/settings/setups');
      const [saved] = await setupsOf(ctx, dave.username);
      expect(saved).to.include({ name: 'From my run', is_default: true });
      expect(saved.config).to.deep.equal({
        hwClass: 'DISCRETE_GPU',
        gpuName: 'NVIDIA GeForce RTX 4090',
        gpuCount: 2,
        vramGb: 24,
        cpu: 'AMD Ryzen 9 7950X',
        engineName: 'llama.cpp',
        engineVersion: 'b4600',
        backend: 'cuda',
        quantization: 'Q5_K_M',
        contextLength: 4096,
        batchSize: 1,
        commandSnippet: './llama-server -m m.gguf -ngl 99 -fa on -np 4',
        gpuLayers: 99,
        flashAttn: true,
        concurrency: 4,
      });
      // It fills the submit form at once, being the default.
      const submit = await dave.agent.get('/submit').expect(200);
      expect(inputValue(submit.text, 'hardware.cpu')).to.equal('AMD Ryzen 9 7950X');
      expect(inputValue(submit.text, 'engineFlags.concurrency')).to.equal('4');
    });

    it('answers htmx with the section: saved (201), a missing name (400) or a taken one (409) inline', async () => {
      const ok = await form(dave, `${runPath}/setup`, { name: 'Second copy' }, true).expect(201);
      expect(ok.text.trimStart()).to.match(/^<section class="card save-setup" id="save-setup">/);
      expect(ok.text).to.include('Saved as “Second copy”.');
      const missing = await form(dave, `${runPath}/setup`, { name: ' ' }, true).expect(400);
      expect(missing.text).to.include('<p class="field-error" id="save-name-error">Name is required</p>');
      const taken = await form(dave, `${runPath}/setup`, { name: 'SECOND COPY' }, true).expect(409);
      expect(taken.text).to.include('<p class="field-error" id="save-name-error">You already have a setup with this name</p>');
      expect(inputValue(taken.text, 'name')).to.equal('SECOND COPY');
      const plain = await form(dave, `${runPath}/setup`, { name: '' }).expect(400);
      expect(plain.text).to.include('<html');
      expect(plain.text).to.include('<h1>Save a run as a setup</h1>');
      expect((await setupsOf(ctx, dave.username)).map((s) => s.name)).to.deep.equal(['From my run', 'Second copy']);
    });

    it('refuses another user (403), an unknown run (404) and a post without the CSRF token (403)', async () => {
      const before = (await setupsOf(ctx, alice.username)).length;
      await form(alice, `${runPath}/setup`, { name: 'Not my run' }).expect(403);
      await form(alice, `/runs/${randomUUID()}/setup`, { name: 'No run' }).expect(404);
      expect((await setupsOf(ctx, alice.username)).length).to.equal(before);
      await dave.agent.post(`${runPath}/setup`).type('form').send({ name: 'Forged' }).expect(403);
      expect((await setupsOf(ctx, dave.username)).map((s) => s.name)).not.to.include('Forged');
    });
  });
});

describe('saved setups: other kinds of GPUs as rows', () => {
  const ctx = useTestApp();
  let carol: Browser;

  before(async () => {
    carol = await signedUpAgent(ctx.app);
  });

  const post = (path: string, fields: Record<string, string>) =>
    carol.agent
      .post(path)
      .type('form')
      .send({ ...fields, _csrf: carol.csrf });

  it('offers rows for other GPUs in the new-setup form, and saves them as gpus with the single-GPU fields first', async () => {
    const page = await carol.agent.get('/settings/setups?hwClass=DISCRETE_GPU').expect(200);
    for (const row of [1, 2, 3]) expect(page.text).to.include(`name="gpus.${row}.gpuName"`);
    await post(
      '/settings/setups',
      setupForm({
        name: 'Mixed rig',
        gpuCount: '1',
        'gpus.1.gpuName': 'NVIDIA GeForce RTX 3090',
        'gpus.1.count': '2',
        'gpus.1.vramGb': '24',
        'gpus.2.gpuName': '',
      }),
    ).expect(303);
    const [saved] = await setupsOf(ctx, carol.username);
    expect(saved!.config.gpus).to.deep.equal([
      { gpuName: 'NVIDIA GeForce RTX 3090', count: 1, vramGb: 24 },
      { gpuName: 'NVIDIA GeForce RTX 3090', count: 2, vramGb: 24 },
    ]);
    expect(saved!.config).to.not.have.property('gpuName');
  });

  it('edits the slots in the form: the first in the single-GPU fields, the others as rows; emptied rows drop them', async () => {
    const setup = await apiSetup(carol, {
      name: 'Two kinds',
      hwClass: 'DISCRETE_GPU',
      gpus: [
        { gpuName: 'NVIDIA GeForce RTX 4090', count: 1, vramGb: 24 },
        { gpuName: 'NVIDIA GeForce RTX 3090', count: 2, vramGb: 24 },
      ],
    });
    const editor = await carol.agent.get(`/settings/setups/${setup.id}/edit`).set('HX-Request', 'true').expect(200);
    expect(inputValue(editor.text, 'gpuName')).to.equal('NVIDIA GeForce RTX 4090');
    expect(inputValue(editor.text, 'gpus.1.gpuName')).to.equal('NVIDIA GeForce RTX 3090');
    expect(inputValue(editor.text, 'gpus.1.count')).to.equal('2');
    expect(editor.text).to.not.include('edited through the API');

    await post(`/settings/setups/${setup.id}`, {
      name: 'Two kinds',
      hwClass: 'DISCRETE_GPU',
      gpuName: 'NVIDIA GeForce RTX 4090',
      gpuCount: '1',
      vramGb: '24',
      'gpus.1.gpuName': 'NVIDIA GeForce RTX 3090',
      'gpus.1.count': '3',
      'gpus.1.vramGb': '24',
    }).expect(303);
    expect((await setupRow(ctx, setup.id)).config.gpus[1].count).to.equal(3);
    await post(`/settings/setups/${setup.id}`, {
      name: 'Two kinds',
      hwClass: 'DISCRETE_GPU',
      gpuName: 'NVIDIA GeForce RTX 4090',
      gpuCount: '1',
      vramGb: '24',
      'gpus.1.gpuName': '',
      'gpus.1.count': '',
      'gpus.1.vramGb': '',
    }).expect(303);
    const single = (await setupRow(ctx, setup.id)).config;
    expect(single).to.include({ gpuName: 'NVIDIA GeForce RTX 4090', gpuCount: 1, vramGb: 24 });
    expect(single).to.not.have.property('gpus');
  });

  it('names a problem in a row by its row and label', async () => {
    const res = await post(
      '/settings/setups',
      setupForm({ name: 'Bad row', 'gpus.1.gpuName': 'NVIDIA GeForce RTX 3090', 'gpus.1.vramGb': '-1' }),
    ).expect(400);
    expect(res.text).to.include('<a href="#f-gpus-1-vramGb">Other GPUs, row 1: VRAM per card (GB)</a>: Must be more than 0.');
  });
});
