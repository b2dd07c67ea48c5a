import { expect } from 'chai';
import request from 'supertest';
import { createKey, signedUpAgent, useTestApp } from '../helpers/app.ts';
import { fakeHubModels } from '../helpers/fake-hub.ts';
import { validSubmission } from '../helpers/fixtures.ts';

describe('public pages', () => {
  const ctx = useTestApp({}, { fakeHub: true });
  const runIds: string[] = [];
  let hardwareId: string;

  before(async () => {
    const { agent, csrf } = await signedUpAgent(ctx.app);
    const { key } = await createKey(agent, csrf);
    const runs = [
      {
        hfId: fakeHubModels.dense,
        hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA GeForce RTX 4090', vramGb: 24, os: 'Ubuntu 24.04' },
        tokSOut: 150,
      },
      {
        hfId: fakeHubModels.dense,
        hardware: { hwClass: 'UNIFIED', chipVendor: 'Apple', chipFamily: 'M4', chipVariant: 'Max', unifiedMemoryGb: 128 },
        tokSOut: 60,
      },
      { hfId: fakeHubModels.ggufQuant, hardware: { hwClass: 'CPU_ONLY', cpu: 'AMD EPYC 9654', ramGb: 384 }, tokSOut: 12 },
      {
        hfId: fakeHubModels.dense,
        hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA GeForce RTX 4090', vramGb: 24, os: 'Ubuntu 24.04' },
        tokSOut: 900,
      },
    ];
    for (const run of runs) {
      ctx.clock.advance(61_000);
      const res = await request(ctx.app)
        .post('/api/speed-tests')
        .set('Authorization', `Bearer ${key}`)
        .send(validSubmission({ ttftMs: undefined, ...run }))
        .expect(201);
      runIds.push(res.body.id);
      hardwareId ??= res.body.hardwareId;
    }
  });

  describe('the leaderboard at /', () => {
    it('renders the whole page with the filter form, ranked rows and links', async () => {
      const res = await request(ctx.app).get('/').expect(200);
      expect(res.headers.vary).to.match(/HX-Request/);
      expect(res.text).to.include('<form class="filters leaderboard-filters" id="leaderboard-filters" method="get" action="/"');
      expect(res.text).to.include('hx-push-url="true"');
      for (const name of [
        'hfId',
        'hwClass',
        'memTier',
        'engineName',
        'quantization',
        'verified',
        'since',
        'hardwareName',
        'paramSize',
        'os',
        'backend',
        'modelFamily',
        'isMoE',
        'batchSize',
        'contextLen',
        'bestPer',
        'plausible',
      ]) {
        expect(res.text, name).to.include(`name="${name}"`);
      }
      expect(res.text).to.include('4 runs, showing 1–4');
      const table = res.text.slice(res.text.indexOf('<table'));
      expect(table.indexOf(`/runs/${runIds[3]}`)).to.be.lessThan(table.indexOf(`/runs/${runIds[0]}`));
      expect(res.text).to.include(`href="/hardware/${hardwareId}"`);
      expect(res.text).to.include(`href="/models/${fakeHubModels.dense}"`);
      // Single-stream runs by default: the view says so, and the export carries the same filter.
      expect(res.text).to.include('<strong>Single-stream runs</strong>');
      expect(res.text).to.include('href="/?batchSize=all"');
      expect(res.text).to.include('href="/api/leaderboard?batchSize=1&amp;format=csv"');
    });

    it('marks a run above the roofline as suspect, and gives every row its verdict and reason', async () => {
      const res = await request(ctx.app).get('/').expect(200);
      expect(res.text).to.match(
        /title="Suspect: Above [^"]+">900<\/a> <span class="badge badge-warn" title="Above the [\d.,]+ tok\/s memory-bandwidth bound: above [^"]+">suspect<\/span>/,
      );
      expect(res.text).to.match(new RegExp(`href="/runs/${runIds[0]}" title="Plausible: Within [^"]+">150</a>`));
    });

    it('answers htmx with only the results region, for the same URL', async () => {
      const res = await request(ctx.app).get('/').query({ hwClass: 'UNIFIED' }).set('HX-Request', 'true').expect(200);
      expect(res.text.trim()).to.match(/^<section id="results"/);
      expect(res.text).not.to.include('<html');
      expect(res.text).to.include('1 run, showing 1–1');
      expect(res.headers.vary).to.match(/HX-Request/);
    });

    it('filters without JavaScript: a plain GET with the form fields, empty ones dropped from the address', async () => {
      const redirect = await request(ctx.app).get('/?hfId=&hwClass=CPU_ONLY&memTier=&sort=tokSOut').expect(302);
      expect(redirect.headers.location).to.equal('/?hwClass=CPU_ONLY&sort=tokSOut');
      const pushed = await request(ctx.app).get('/?hfId=&hwClass=CPU_ONLY').set('HX-Request', 'true').expect(200);
      expect(pushed.headers['hx-push-url']).to.equal('/?hwClass=CPU_ONLY');
      const res = await request(ctx.app).get(redirect.headers.location!).expect(200);
      expect(res.text).to.include('1 run, showing 1–1');
      expect(res.text).to.include('<option value="CPU_ONLY" selected>');
      expect(res.text).to.include('href="/api/leaderboard?hwClass=CPU_ONLY&amp;sort=tokSOut&amp;batchSize=1&amp;format=csv"');
      const plausible = await request(ctx.app).get('/?plausible=true').expect(200);
      expect(plausible.text).to.include('3 runs');
    });

    it('pages with links that keep the filters', async () => {
      const res = await request(ctx.app).get('/?limit=2&hardwareName=4090').expect(200);
      expect(res.text).to.include('2 runs, showing 1–2');
      const all = await request(ctx.app).get('/?limit=2').expect(200);
      expect(all.text).to.include('href="/?limit=2&amp;offset=2"');
      const second = await request(ctx.app).get('/?limit=2&offset=2').expect(200);
      expect(second.text).to.include('showing 3–4');
      expect(second.text).to.include('href="/?limit=2"');
    });

    it('shows bad filters next to the form with a 400, not a crash', async () => {
      const res = await request(ctx.app).get('/?memTier=7&nonsense=1').expect(400);
      expect(res.text).to.include('Some filters are not valid: see the marked fields above.');
      // A filter of the form: its message by its field (once), the choices being in the select.
      expect(res.text).to.include(
        '<p class="field-error" id="lb-memTier-error">“7” is not one of the choices; pick one from the list.</p>',
      );
      expect(res.text.match(/is not one of the choices/g)).to.have.length(1);
      // A parameter the form does not have: named in the message.
      expect(res.text).to.include('<code>nonsense</code>: Unknown field');
      // A streams value the page does not know (it knows 1-8 and `all`) is a field error too.
      for (const batchSize of ['x', '0', 'ALL']) {
        const bad = await request(ctx.app).get('/').query({ batchSize }).expect(400);
        expect(bad.text, batchSize).to.include('id="lb-batchSize-error"');
      }
    });

    it('names a chosen streams bucket and links to both other views', async () => {
      const res = await request(ctx.app).get('/?batchSize=8').expect(200);
      expect(res.text).to.include('<strong>Runs of 8 or more streams</strong>');
      expect(res.text).to.include('0 runs');
      expect(res.text).to.include(
        '<a href="/" hx-get="/" hx-target="#results" hx-swap="outerHTML" hx-push-url="true">Single-stream runs</a>',
      );
      expect(res.text).to.include(
        '<a href="/?batchSize=all" hx-get="/?batchSize=all" hx-target="#results" hx-swap="outerHTML" hx-push-url="true">All runs</a>',
      );
      // Other filters are kept, escaped in the attribute.
      expect((await request(ctx.app).get('/?hwClass=UNIFIED&batchSize=all').expect(200)).text).to.include('href="/?hwClass=UNIFIED"');
      expect((await request(ctx.app).get('/?hwClass=UNIFIED&sort=ttftMs').expect(200)).text).to.include(
        'href="/?hwClass=UNIFIED&amp;sort=ttftMs&amp;batchSize=all"',
      );
      expect(res.text).to.include('<option value="8" selected>8 or more</option>');
      const all = await request(ctx.app).get('/?batchSize=all').expect(200);
      expect(all.text).to.include('<option value="all" selected>all runs</option>');
      expect(all.text).to.include('4 runs');
    });
  });

  describe('the model pages', () => {
    it('lists the catalogue and searches as you type (htmx fragment)', async () => {
      const page = await request(ctx.app).get('/models').expect(200);
      expect(page.text).to.include('hx-trigger="input delay:300ms from:#model-q, change, submit"');
      expect(page.text).to.include(`href="/models/${fakeHubModels.dense}"`);
      const fragment = await request(ctx.app).get('/models').query({ search: 'gguf' }).set('HX-Request', 'true').expect(200);
      expect(fragment.text.trim()).to.match(/^<section id="model-list"/);
      expect(fragment.text).to.include(fakeHubModels.ggufQuant);
      expect(fragment.text).not.to.include(`<td><a href="/models/${fakeHubModels.dense}">`);
      expect(fragment.text).to.include('1 model');
    });

    it('shows the tree of a base and its quantization', async () => {
      const res = await request(ctx.app).get('/models').query({ tree: 'true' }).expect(200);
      const base = res.text.indexOf(`href="/models/${fakeHubModels.dense}"`);
      const child = res.text.indexOf(`href="/models/${fakeHubModels.ggufQuant}"`);
      expect(base).to.be.greaterThan(-1);
      expect(child).to.be.greaterThan(base);
      expect(res.text).to.include('<span class="badge badge-muted">quantized</span>');
    });

    it("shows one model: hub link, figures, derived models and runs; its quantization's runs under the tree scope", async () => {
      const res = await request(ctx.app).get(`/models/${fakeHubModels.dense}`).expect(200);
      expect(res.text).to.include(`href="${ctx.hub.url}/${fakeHubModels.dense}"`);
      expect(res.text).to.include('<strong>3</strong> approved runs');
      expect(res.text).to.include(`href="/models/${fakeHubModels.ggufQuant}"`);
      expect(res.text).not.to.include(`/runs/${runIds[2]}`);
      expect(res.text).to.include('<th scope="row">Discrete GPU</th>');
      const tree = await request(ctx.app).get(`/models/${fakeHubModels.dense}?scope=tree`).expect(200);
      expect(tree.text).to.include('<strong>4</strong> approved runs');
      expect(tree.text).to.include(`/runs/${runIds[2]}`); // the quant's run is listed with the base
      await request(ctx.app).get('/models/nobody/nothing').expect(404);
    });

    it('draws server-side SVG charts with titles: best run per hardware, and speed against memory', async () => {
      const res = await request(ctx.app).get(`/models/${fakeHubModels.dense}`).expect(200);
      // Charts whose bars and points link to runs are named groups (an image would hide its links).
      // Each is drawn for wide screens and again for phones; the runs state no prefill speed or depth, so those two charts are empty.
      const svgs = res.text.match(/<svg [^>]*role="group"[^>]*aria-labelledby="[^"]+"[^>]*>/g) ?? [];
      expect(svgs).to.have.length(4);
      expect(res.text).to.match(/<title id="[^"]+">Output tok\/s by hardware: Dense-7B<\/title>/);
      expect(res.text).to.match(/<title id="[^"]+">Output tok\/s against memory: Dense-7B<\/title>/);
      expect(res.text).to.include('<desc id=');
      // Two hardware profiles ran the base model: two bars, each linking its run.
      expect(res.text).to.include(`href="/runs/${runIds[3]}"`);
      expect(res.text).to.include('chart-point-suspect');
      const board = await request(ctx.app).get('/').expect(200);
      expect(board.text).to.match(/<title id="[^"]+">Output tok\/s against memory: the filtered leaderboard<\/title>/);
    });
  });

  it('shows a hardware profile with its runs; 404 for unknown or malformed ids', async () => {
    const res = await request(ctx.app).get(`/hardware/${hardwareId}`).expect(200);
    expect(res.text).to.include('NVIDIA GeForce RTX 4090');
    expect(res.text).to.include('2 runs across models');
    await request(ctx.app).get('/hardware/00000000-0000-4000-8000-000000000000').expect(404);
    await request(ctx.app).get('/hardware/nope').expect(404);
  });

  it('shows a run page its verdict with the bound and the reason', async () => {
    const suspect = await request(ctx.app).get(`/runs/${runIds[3]}`).expect(200);
    expect(suspect.text).to.match(
      /<p class="alert alert-error" id="plausibility">\s*<strong>Suspect\.<\/strong>\s*Above [^<]+\.\s*Single-stream decode bound for this model, quantization and hardware: <strong>[\d.,]+ tok\/s<\/strong>/,
    );
    const plausible = await request(ctx.app).get(`/runs/${runIds[0]}`).expect(200);
    expect(plausible.text).to.match(/<p class="alert alert-info" id="plausibility">\s*<strong>Plausible\.<\/strong>\s*Within /);
    expect(plausible.text).to.include('<a href="/methodology">How runs are judged</a>');
  });

  it('explains the roofline on /methodology with the bits-per-weight table', async () => {
    const res = await request(ctx.app).get('/methodology').expect(200);
    expect(res.text).to.include('memory bandwidth (GB/s)');
    expect(res.text).to.match(/<code>Q4_K_M<\/code><\/td><td class="num">4\.8<\/td>/);
    expect(res.text).to.match(/<td>gpt-oss-20b<\/td><td class="num">20\.91<\/td><td class="num">3\.61<\/td><td class="num">4\.25<\/td>/);
  });

  it('explains the suspect factor of each hardware class and the real runs it was chosen from', async () => {
    const res = await request(ctx.app).get('/methodology').expect(200);
    expect(res.text).to.match(/<td>discrete GPU<\/td><td class="num">1\.1 × bound<\/td>/);
    expect(res.text).to.match(/<td>unified memory<\/td><td class="num">1\.1 × bound<\/td>/);
    expect(res.text).to.match(/<td>CPU<\/td><td class="num">1\.5 × bound<\/td>/);
    expect(res.text).to.include('0.91 × the bound');
    expect(res.text).to.include('test/fixtures/real-runs');
  });
});
