import { expect } from 'chai';
import request from 'supertest';
import { fakeHubModels } from '../helpers/fake-hub.ts';
import { signedUpAgent, useTestApp, type Agent } from '../helpers/app.ts';

/** The form as a browser posts it: flat field names. */
function formFields(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    hfId: fakeHubModels.dense,
    quantization: 'Q4_K_M',
    engineName: 'llama.cpp',
    'hardware.hwClass': 'DISCRETE_GPU',
    'hardware.gpuName': 'NVIDIA GeForce RTX 4090',
    'hardware.vramGb': '24',
    'hardware.gpuCount': '',
    tokSOut: '142.5',
    ttftMs: '95',
    'engineFlags.commandSnippet': './llama-server -m m.gguf -ngl 99 -fa on -np 4',
    'engineFlags.gpuLayers': '',
    notes: 'quiet machine',
    ...overrides,
  };
}

describe('submit page (/submit) and run page (/runs/:id)', () => {
  const ctx = useTestApp({}, { fakeHub: true });
  let browser: { agent: Agent; csrf: string; username: string };

  before(async () => {
    browser = await signedUpAgent(ctx.app);
  });

  const post = (path: string, fields: Record<string, string>, htmx = false) => {
    const req = browser.agent.post(path).type('form').send({ ...fields, _csrf: browser.csrf });
    return htmx ? req.set('HX-Request', 'true') : req;
  };


  it('renders one form with the engine list, the discrete-GPU fieldset and the open window', async () => {
    const res = await browser.agent.get('/submit').expect(200);
    expect(res.text).to.include('<form class="stack submit-form" method="post" action="/submit"');
    expect(res.text).to.include('<option value="exllamav3">');
    expect(res.text).to.include('name="hardware.gpuName"');
    expect(res.text).not.to.include('name="hardware.chipVendor"');
    expect(res.text).to.include('You can submit now.');
    expect(res.text).to.include('hx-post="/submit/validate"');
    // Auto-complete from the hardware catalogue.
    expect(res.text).to.match(/name="hardware\.gpuName"[^>]*list="gpu-names"/);
    expect(res.text).to.include('<datalist id="gpu-names">');
    expect(res.text).to.include('<option value="NVIDIA GeForce RTX 4090">');
    expect(res.text).to.include('<option value="AMD EPYC 9654">');
  });

  it('switches the hardware fieldset by class (htmx fragment, and the no-JS query form)', async () => {
    const unified = await browser.agent.get('/submit/hardware-fields').query({ 'hardware.hwClass': 'UNIFIED' }).set('HX-Request', 'true').expect(200);
    expect(unified.text).to.include('name="hardware.chipVariant"');
    expect(unified.text).not.to.include('<html');
    const cpu = await browser.agent.get('/submit').query({ hwClass: 'CPU_ONLY' }).expect(200);
    expect(cpu.text).to.match(/name="hardware\.cpu"[^>]*required/);
    expect(cpu.text).not.to.include('name="hardware.gpuName"');
  });

  it('fills the flag fields from a pasted launch command', async () => {
    const res = await post('/submit/parse-command', { engineName: 'vllm', 'engineFlags.commandSnippet': 'vllm serve m --tensor-parallel-size 2 --max-num-seqs 8 --enable-prefix-caching --weird' }, true).expect(200);
    expect(res.text).to.match(/name="engineFlags\.tensorParallel"[^>]*value="2"/);
    expect(res.text).to.match(/<option value="true" selected>yes<\/option>/);
    expect(res.text).to.include('Read from the command: --tensor-parallel-size, --max-num-seqs, --enable-prefix-caching');
    expect(res.text).to.include('Not mapped (kept in the command): --weird');
  });

  it('validates as you type: problems listed by field, or a green light', async () => {
    const bad = await post('/submit/validate', formFields({ tokSOut: '-1', 'hardware.vramGb': '' }), true).expect(200);
    expect(bad.text).to.include('Not valid yet');
    expect(bad.text).to.include('<code>tokSOut</code>: Must be positive');
    expect(bad.text).to.include('<code>hardware.vramGb</code>: Required unless gpus is given');
    const good = await post('/submit/validate', formFields(), true).expect(200);
    expect(good.text).to.include('Looks valid');
  });

  it('re-renders the form with inline errors and the typed values on a bad post, writing nothing', async () => {
    const res = await post('/submit', formFields({ tokSOut: 'fast', quantization: '' })).expect(400);
    expect(res.text).to.match(/name="tokSOut"[^>]*value="fast"[^>]*aria-invalid="true"/);
    expect(res.text).to.include('Must be a number');
    expect(res.text).to.match(/name="quantization"[^>]*aria-invalid="true"/);
    expect(res.text).to.match(/name="hardware\.gpuName"[^>]*value="NVIDIA GeForce RTX 4090"/);
    expect((await ctx.db('speed_test_runs').count('* as n').first())!.n).to.equal(0);
  });

  it('shows the hub’s answer for an unknown model on the form (404)', async () => {
    const res = await post('/submit', formFields({ hfId: fakeHubModels.missing })).expect(404);
    expect(res.text).to.include(`Model &#39;${fakeHubModels.missing}&#39; not found on the model hub`);
  });

  it('submits, redirects to the run page, and shows every part of the run there', async () => {
    const res = await post('/submit', formFields()).expect(303);
    expect(res.headers.location).to.match(/^\/runs\/[0-9a-f-]{36}$/);
    const page = await browser.agent.get(res.headers.location!).expect(200);
    expect(page.text).to.include('Dense-7B');
    expect(page.text).to.include('NVIDIA GeForce RTX 4090');
    expect(page.text).to.include('<strong>142.5</strong> output tok/s with llama.cpp');
    expect(page.text).to.include('./llama-server -m m.gguf -ngl 99 -fa on -np 4');
    expect(page.text).to.match(/<code>gpuLayers<\/code><\/td><td>99/);
    expect(page.text).to.match(/<code>concurrency<\/code><\/td><td>4/);
    expect(page.text).to.include(`@${browser.username}`);
    expect(page.text).to.include('quiet machine');
    expect(page.text).to.include(`${ctx.hub.url}/fakeorg/Dense-7B`);
    // Four requests in flight (-np 4): a throughput run, said so on its page, and ranked
    // among all runs on the home page, not among the single-stream runs it shows by default.
    expect(page.text).to.include('Throughput run: ×4 streams.');
    expect((await request(ctx.app).get('/').expect(200)).text).not.to.include(res.headers.location);
    const all = await request(ctx.app).get('/?batchSize=all').expect(200);
    expect(all.text).to.include(res.headers.location);
    expect(all.text).to.include('<strong>All runs</strong>');
    const streamsBadge = /<span class="badge badge-muted" title="Aggregate output of 4 sequences at once \(batch 1 × requests in flight\)">×4 streams<\/span>/;
    expect(all.text).to.match(streamsBadge);
    // The run tables of the model, hardware and profile pages mark it the same way.
    expect((await request(ctx.app).get(`/u/${browser.username}`).expect(200)).text).to.match(streamsBadge);
  });

  it('shows the rate-limit state and refuses a second run inside the window with 429', async () => {
    const form = await browser.agent.get('/submit').expect(200);
    expect(form.text).to.match(/next submission is possible at .* \(in 60 s\)/);
    const res = await post('/submit', formFields()).expect(429);
    expect(res.text).to.include('Rate limit exceeded. You may submit once every 1 minute.');
    ctx.clock.advance(60_000);
    expect((await browser.agent.get('/submit')).text).to.include('You can submit now.');
  });

  it('needs the CSRF token to submit', async () => {
    await browser.agent.post('/submit').type('form').send(formFields()).expect(403);
  });

  it('answers an unknown or malformed run id with a 404 page', async () => {
    await request(ctx.app).get('/runs/00000000-0000-4000-8000-000000000000').expect(404);
    const res = await request(ctx.app).get('/runs/not-an-id').expect(404);
    expect(res.text).to.include('Page not found');
  });

  it('links the engine repository and commit on a revision-3 run', async () => {
    const res = await post('/submit', formFields({
      engineName: 'freetoken',
      engineCommit: 'ABCDEF1234567',
      'engineFlags.commandSnippet': '',
    })).expect(303);
    const page = await browser.agent.get(res.headers.location!).expect(200);
    expect(page.text).to.include('href="https://github.com/FlashML-org/FreeToken/commit/abcdef1234567"');
  });

  describe('what the launch command states, and what was not stated', () => {
    const vllmCommand = `vllm serve ${fakeHubModels.dense} --max-model-len 8192 --max-num-seqs 8`;

    it('says which top-level fields the pasted command states when reading its flags', async () => {
      const res = await post('/submit/parse-command', { engineName: '', 'engineFlags.commandSnippet': vllmCommand }, true).expect(200);
      expect(res.text).to.include(`It also states engine vllm, model id ${fakeHubModels.dense}, context length 8192: used where the form leaves those empty.`);
    });

    it('validates as you type with the model and engine from the command, naming what it read and what is not stated', async () => {
      const res = await post('/submit/validate', formFields({ hfId: '', engineName: '', 'engineFlags.commandSnippet': vllmCommand }), true).expect(200);
      expect(res.text).to.include('Looks valid');
      expect(res.text).to.include(`Read from your launch command: model id ${fakeHubModels.dense}, engine vllm, context length 8192.`);
      expect(res.text).to.include('Not stated (shown as “not stated”): model revision, prompt tokens, output tokens, batch size, cached tokens.');
    });

    it('fills an empty model id and engine from the command before validation, and says so on the form', async () => {
      const res = await post('/submit', formFields({ hfId: '', engineName: '', tokSOut: 'fast', 'engineFlags.commandSnippet': vllmCommand })).expect(400);
      expect(res.text).to.include('Read from your launch command: model id, engine.');
      expect(res.text).to.match(new RegExp(`name="hfId"[^>]*value="${fakeHubModels.dense}"`));
      expect(res.text).to.include('<option value="vllm" selected>');
      // A typed model id and engine win: nothing is read then.
      const typed = await post('/submit', formFields({ tokSOut: 'fast', 'engineFlags.commandSnippet': vllmCommand })).expect(400);
      expect(typed.text).to.not.include('Read from your launch command');
      expect(typed.text).to.include('<option value="llama.cpp" selected>');
    });

    it('stores a run whose model, engine and context came from the command, and shows the rest as not stated', async () => {
      ctx.clock.advance(120_000);
      const res = await post('/submit', formFields({ hfId: '', engineName: '', 'engineFlags.commandSnippet': vllmCommand })).expect(303);
      const id = res.headers.location!.slice('/runs/'.length);
      const run = (await request(ctx.app).get(`/api/speed-tests/${id}`).expect(200)).body;
      expect(run).to.deep.include({ hfId: fakeHubModels.dense, engineName: 'vllm', contextLength: 8192 });
      expect(run.defaultedFields).to.deep.equal(['modelRevision', 'promptTokens', 'outputTokens', 'batchSize', 'prefillTokens']);
      const page = (await browser.agent.get(res.headers.location!).expect(200)).text;
      expect(page).to.match(/<th scope="row">Context length<\/th><td class="num">8,192<\/td>/);
      for (const [field, label] of [['promptTokens', 'Prompt tokens'], ['outputTokens', 'Output tokens'], ['batchSize', 'Batch size'], ['prefillTokens', 'Tokens already cached']]) {
        expect(page, field).to.match(new RegExp(`<tr data-not-stated="${field}"><th scope="row">${label}</th><td class="num muted"[^>]*>not stated</td>`));
      }
      expect(page).to.include('<span class="muted" data-not-stated="modelRevision">(revision not stated)</span>');
      expect(page).to.not.include('at revision <code>main</code>');
    });

    it('shows stated values as facts, the spec default included, and a run stored before the list as it was', async () => {
      ctx.clock.advance(120_000);
      const res = await post('/submit', formFields({ contextLength: '2048', batchSize: '1', promptTokens: '512', outputTokens: '128', prefillTokens: '0', modelRevision: 'main' })).expect(303);
      const page = (await browser.agent.get(res.headers.location!).expect(200)).text;
      expect(page).to.not.include('not stated');
      expect(page).to.match(/<th scope="row">Context length<\/th><td class="num">2,048<\/td>/);
      expect(page).to.include('at revision <code>main</code>');

      const id = res.headers.location!.slice('/runs/'.length);
      await ctx.db('speed_test_runs').where({ id }).update({ defaulted_fields: null });
      const old = (await browser.agent.get(res.headers.location!).expect(200)).text;
      expect(old).to.not.include('not stated');
      expect(old).to.match(/<th scope="row">Batch size<\/th><td class="num">1<\/td>/);
    });
  });
});
