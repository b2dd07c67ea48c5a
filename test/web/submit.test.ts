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
    const req = browser.agent
      .post(path)
      .type('form')
      .send({ ...fields, _csrf: browser.csrf });
    return htmx ? req.set('HX-Request', 'true') : req;
  };

  it('renders one form with the engine list and the discrete-GPU fieldset, and no banner while submitting is open', async () => {
    const res = await browser.agent.get('/submit').expect(200);
    expect(res.text).to.include('<form class="stack submit-form" method="post" action="/submit"');
    expect(res.text).to.include('<option value="exllamav3">');
    expect(res.text).to.include('name="hardware.gpuName"');
    expect(res.text).not.to.include('name="hardware.chipVendor"');
    expect(res.text).not.to.include('You can submit now.');
    expect(res.text).not.to.include('next submission is possible');
    expect(res.text).to.include('hx-post="/submit/validate"');
    // Auto-complete from the hardware catalogue.
    expect(res.text).to.match(/name="hardware\.gpuName"[^>]*list="gpu-names"/);
    expect(res.text).to.include('<datalist id="gpu-names">');
    expect(res.text).to.include('<option value="NVIDIA GeForce RTX 4090">');
    expect(res.text).to.include('<option value="AMD EPYC 9654">');
  });

  it('switches the hardware fieldset by class (htmx fragment, and the no-JS query form)', async () => {
    const unified = await browser.agent
      .get('/submit/hardware-fields')
      .query({ 'hardware.hwClass': 'UNIFIED' })
      .set('HX-Request', 'true')
      .expect(200);
    expect(unified.text).to.include('name="hardware.chipVariant"');
    expect(unified.text).not.to.include('<html');
    const cpu = await browser.agent.get('/submit').query({ hwClass: 'CPU_ONLY' }).expect(200);
    expect(cpu.text).to.match(/name="hardware\.cpu"[^>]*required/);
    expect(cpu.text).not.to.include('name="hardware.gpuName"');
  });

  it('fills the flag fields from a pasted launch command', async () => {
    const res = await post(
      '/submit/parse-command',
      {
        engineName: 'vllm',
        'engineFlags.commandSnippet': 'vllm serve m --tensor-parallel-size 2 --max-num-seqs 8 --enable-prefix-caching --weird',
      },
      true,
    ).expect(200);
    expect(res.text).to.match(/name="engineFlags\.tensorParallel"[^>]*value="2"/);
    expect(res.text).to.match(/<option value="true" selected>yes<\/option>/);
    expect(res.text).to.include('Read from the command: --tensor-parallel-size, --max-num-seqs, --enable-prefix-caching');
    expect(res.text).to.include('Not mapped (kept in the command): --weird');
  });

  it('marks every optional field, and no required one', async () => {
    const res = await browser.agent.get('/submit').expect(200);
    const label = (id: string) => new RegExp(`<label for="${id}">([^]*?)</label>`).exec(res.text)?.[1];
    for (const id of ['f-hfId', 'f-quantization', 'f-engineName', 'f-hardware-gpuName', 'f-hardware-vramGb', 'f-tokSOut'])
      expect(label(id), id).to.not.include('optional');
    for (const id of [
      'f-modelRevision',
      'f-engineVersion',
      'f-backend',
      'f-hardware-gpuCount',
      'f-hardware-cpu',
      'f-hardware-os',
      'f-tokSPrefill',
      'f-ttftMs',
      'f-contextLength',
      'f-batchSize',
      'f-engineFlags-gpuLayers',
      'f-engineFlags-flashAttn',
      'f-gpuPowerWatts',
      'f-notes',
    ]) {
      expect(label(id), id).to.match(/<span class="optional">\(optional\)<\/span>$/);
    }
  });

  it('validates as you type, naming problems in plain words only for the fields already left', async () => {
    // Typing the first field: nothing is named as wrong, the rest is only listed as still to do.
    const first = await post('/submit/validate', { hfId: 'fakeorg/Dense', 'hardware.hwClass': 'DISCRETE_GPU', _touched: '' }, true).expect(
      200,
    );
    expect(first.text).not.to.include('alert-error');
    expect(first.text).not.to.include('data-field=');
    expect(first.text).to.match(/Still to fill in or fix: Quantization, Engine, GPU, VRAM per GPU \(GB\)\./);
    // Left fields are named with their labels and a plain sentence; no API paths or field names.
    const bad = await post(
      '/submit/validate',
      formFields({ tokSOut: '-1', 'hardware.vramGb': '', _touched: 'hfId,tokSOut,hardware.vramGb' }),
      true,
    ).expect(200);
    expect(bad.text).to.include(
      '<li data-field="tokSOut"><a href="#f-tokSOut">Output tokens per second</a>: <span class="problem-text">Must be more than 0.</span></li>',
    );
    expect(bad.text).to.include(
      '<li data-field="hardware.vramGb"><a href="#f-hardware-vramGb">VRAM per GPU (GB)</a>: <span class="problem-text">Type how much memory one GPU has, in GB.</span></li>',
    );
    expect(bad.text).not.to.match(/hardware\.vramGb<\/code>|gpus is given|Required unless/);
    // A field not left yet stays unnamed.
    const partly = await post('/submit/validate', formFields({ tokSOut: '-1', 'hardware.vramGb': '', _touched: 'tokSOut' }), true).expect(
      200,
    );
    expect(partly.text).to.include('data-field="tokSOut"');
    expect(partly.text).not.to.include('data-field="hardware.vramGb"');
    expect(partly.text).to.include('Still to fill in or fix: VRAM per GPU (GB).');
    const good = await post('/submit/validate', { ...formFields(), _touched: '*' }, true).expect(200);
    expect(good.text).to.include('Everything filled in checks out');
    expect(good.text).to.include('Not checked here: whether the model exists on the hub');
  });

  it('asks the model hub about the model id when the field is left, and says what it found or that it was not reached', async () => {
    const check = (hfId: string) => post('/submit/check-model', { hfId }, true).expect(200);
    expect((await browser.agent.get('/submit').expect(200)).text).to.include('The model hub was not asked yet');
    expect((await check(fakeHubModels.dense)).text).to.include(
      `<span class="badge badge-ok">found</span> ${fakeHubModels.dense} is on the model hub.`,
    );
    const missing = await check(fakeHubModels.missing);
    expect(missing.text).to.include('<span class="badge badge-warn">not found</span>');
    expect(missing.text).to.include('not found on the model hub');
    const down = await check(fakeHubModels.rateLimited);
    expect(down.text).to.include('Couldn’t reach the model hub just now; you can still submit');
    expect((await check('no-slash')).text).to.include('The model hub was not asked yet');
  });

  it('re-renders the form with inline errors and the typed values on a bad post, writing nothing', async () => {
    const res = await post('/submit', formFields({ tokSOut: 'fast', quantization: '' })).expect(400);
    expect(res.text).to.match(/name="tokSOut"[^>]*value="fast"[^>]*aria-invalid="true"/);
    expect(res.text).to.match(/id="f-tokSOut-error">Type a number, like 42\.5\.<\/p>/);
    expect(res.text).to.match(/name="quantization"[^>]*aria-invalid="true"/);
    // A summary at the top links each problem to its field; the live check then keeps showing them all.
    expect(res.text).to.include(
      '<li><a href="#f-quantization">Quantization</a>: Say which quantization you ran, like Q4_K_M or fp16.</li>',
    );
    expect(res.text).to.include('<input type="hidden" name="_touched" value="*">');
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
    const streamsBadge =
      /<span class="badge badge-muted" title="Aggregate output of 4 sequences at once \(batch 1 × requests in flight\)">×4 streams<\/span>/;
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
    expect((await browser.agent.get('/submit')).text).not.to.include('next submission is possible');
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
    const res = await post(
      '/submit',
      formFields({
        engineName: 'freetoken',
        engineCommit: 'ABCDEF1234567',
        'engineFlags.commandSnippet': '',
      }),
    ).expect(303);
    const page = await browser.agent.get(res.headers.location!).expect(200);
    expect(page.text).to.include('href="https://github.com/FlashML-org/FreeToken/commit/abcdef1234567"');
  });

  describe('what the launch command states, and what was not stated', () => {
    const vllmCommand = `vllm serve ${fakeHubModels.dense} --max-model-len 8192 --max-num-seqs 8`;

    it('says which top-level fields the pasted command states when reading its flags', async () => {
      const res = await post('/submit/parse-command', { engineName: '', 'engineFlags.commandSnippet': vllmCommand }, true).expect(200);
      expect(res.text).to.include(
        `It also states engine vllm, model id ${fakeHubModels.dense}, context length 8192: used where the form leaves those empty.`,
      );
    });

    it('validates as you type with the model and engine from the command, naming what it read and what is not stated', async () => {
      const res = await post(
        '/submit/validate',
        formFields({ hfId: '', engineName: '', 'engineFlags.commandSnippet': vllmCommand }),
        true,
      ).expect(200);
      expect(res.text).to.include('Everything filled in checks out');
      expect(res.text).to.include(`Read from your launch command: model id ${fakeHubModels.dense}, engine vllm, context length 8192.`);
      expect(res.text).to.include(
        'Not stated (shown as “not stated”): model revision, prompt tokens, output tokens, batch size, cached tokens.',
      );
    });

    it('fills an empty model id and engine from the command before validation, and says so on the form', async () => {
      const res = await post(
        '/submit',
        formFields({ hfId: '', engineName: '', tokSOut: 'fast', 'engineFlags.commandSnippet': vllmCommand }),
      ).expect(400);
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
      for (const [field, label] of [
        ['promptTokens', 'Prompt tokens'],
        ['outputTokens', 'Output tokens'],
        ['batchSize', 'Batch size'],
        ['prefillTokens', 'Tokens already cached'],
      ]) {
        expect(page, field).to.match(
          new RegExp(`<tr data-not-stated="${field}"><th scope="row">${label}</th><td class="num muted"[^>]*>not stated</td>`),
        );
      }
      expect(page).to.include('<span class="muted" data-not-stated="modelRevision">(revision not stated)</span>');
      expect(page).to.not.include('at revision <code>main</code>');
    });

    it('shows stated values as facts, the spec default included, and a run stored before the list as it was', async () => {
      ctx.clock.advance(120_000);
      const res = await post(
        '/submit',
        formFields({
          contextLength: '2048',
          batchSize: '1',
          promptTokens: '512',
          outputTokens: '128',
          prefillTokens: '0',
          modelRevision: 'main',
        }),
      ).expect(303);
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

describe('submit form: other GPUs, power and cost (revision 3 fields)', () => {
  const ctx = useTestApp({}, { fakeHub: true });

  const submitAs = async (fields: Record<string, string>) => {
    const browser = await signedUpAgent(ctx.app);
    return browser.agent
      .post('/submit')
      .type('form')
      .send({ ...formFields(), ...fields, _csrf: browser.csrf });
  };

  it('offers rows for other kinds of GPUs and for purchases (a fixed number without JavaScript), and the power field', async () => {
    const { agent } = await signedUpAgent(ctx.app);
    const res = await agent.get('/submit').expect(200);
    for (const row of [1, 2, 3]) expect(res.text).to.include(`name="hardware.gpus.${row}.vramGb"`);
    expect(res.text).not.to.include('name="hardware.gpus.4.');
    for (const row of [0, 1]) expect(res.text).to.include(`name="hardwareCost.${row}.price"`);
    expect(res.text).to.match(
      /<select id="f-hardwareCost-0-currency" name="hardwareCost\.0\.currency">[\s\S]*<option value="EUR">EUR<\/option>/,
    );
    expect(res.text).to.include('<datalist id="component-names">');
    expect(res.text).to.include('name="gpuPowerWatts"');
  });

  it('stores mixed GPUs from the rows, with the single-GPU fields as the first kind', async () => {
    const res = await submitAs({
      'hardware.gpuCount': '2',
      'hardware.gpus.1.gpuName': 'NVIDIA GeForce RTX 3090',
      'hardware.gpus.1.count': '1',
      'hardware.gpus.1.vramGb': '24',
      'hardware.gpus.2.gpuName': '',
    });
    expect(res.status, res.text.slice(0, 300)).to.equal(303);
    const run = await ctx
      .db('speed_test_runs as r')
      .join('hardware_profiles as h', 'h.id', 'r.hardware_id')
      .where('r.id', res.headers.location!.split('/').pop())
      .first('h.*');
    expect(run.is_heterogeneous_gpu).to.equal(true);
    expect(run.gpu_count).to.equal(3);
  });

  it('names a problem in a GPU row by its row and label, and keeps the rows as typed', async () => {
    const before = (await ctx.db('speed_test_runs').count('* as n').first())!.n;
    const res = await submitAs({ 'hardware.gpus.1.gpuName': 'NVIDIA GeForce RTX 3090', 'hardware.gpus.1.vramGb': 'lots' });
    expect(res.status).to.equal(400);
    expect(res.text).to.include(
      '<li><a href="#f-hardware-gpus-1-vramGb">Other GPUs, row 1: VRAM per card (GB)</a>: Type a number, like 42.5.</li>',
    );
    expect(res.text).to.match(/name="hardware\.gpus\.1\.vramGb"[^>]*value="lots"[^>]*aria-invalid="true"/);
    expect((await ctx.db('speed_test_runs').count('* as n').first())!.n).to.equal(before);
  });

  it('stores measured watts and purchases, a purchase typed in the second row counting as the first', async () => {
    const res = await submitAs({
      gpuPowerWatts: '350',
      'hardwareCost.1.component': 'NVIDIA GeForce RTX 4090',
      'hardwareCost.1.price': '1599',
      'hardwareCost.1.currency': 'USD',
      'hardwareCost.1.condition': 'NEW',
      'hardwareCost.1.yearPurchased': '2024',
    });
    expect(res.status, res.text.slice(0, 300)).to.equal(303);
    const run = await ctx
      .db('speed_test_runs')
      .where({ id: res.headers.location!.split('/').pop() })
      .first('gpu_power_watts', 'hardware_cost');
    expect(run.gpu_power_watts.map(Number)).to.deep.equal([350]);
    expect(run.hardware_cost).to.deep.equal([
      { component: 'NVIDIA GeForce RTX 4090', price: 1599, currency: 'USD', condition: 'NEW', yearPurchased: 2024 },
    ]);
  });

  it('says in plain words what is wrong with a purchase, on its row', async () => {
    const res = await submitAs({
      'hardwareCost.0.component': 'My GPU',
      'hardwareCost.0.price': '10',
      'hardwareCost.0.currency': 'USD',
      'hardwareCost.0.condition': 'NEW',
      'hardwareCost.0.yearPurchased': '2999',
    });
    expect(res.status).to.equal(400);
    expect(res.text).to.include(
      '<a href="#f-hardwareCost-0-component">Purchase 1: Part</a>: Pick the part’s name from the suggestions (the hardware catalogue).',
    );
    expect(res.text).to.include('<a href="#f-hardwareCost-0-yearPurchased">Purchase 1: Year bought</a>: That year has not happened yet.');
  });
});
