import { expect } from 'chai';
import request from 'supertest';
import { createKey, signedUpAgent, useTestApp } from '../helpers/app.ts';
import { fakeHubModels } from '../helpers/fake-hub.ts';
import { validSubmission } from '../helpers/fixtures.ts';

/** The text of the element with `id` (its opening tag to the next closing tag of that kind). */
function region(html: string, id: string): string {
  const start = html.indexOf(`id="${id}"`);
  expect(start, `#${id}`).to.be.greaterThan(-1);
  const tag = html.lastIndexOf('<', start);
  const name = /^<([a-z0-9]+)/.exec(html.slice(tag))![1]!;
  return html.slice(tag, html.indexOf(`</${name}>`, start) + name.length + 3);
}

const rtx4090 = { hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA GeForce RTX 4090', vramGb: 24, os: 'Ubuntu 24.04' };
const rtx4090Windows = { hwClass: 'DISCRETE_GPU', gpuName: 'RTX 4090', vramGb: 24, os: 'Windows 11' };
const m4Max = { hwClass: 'UNIFIED', chipVendor: 'Apple', chipFamily: 'M4', chipVariant: 'Max', unifiedMemoryGb: 128 };
const epyc = { hwClass: 'CPU_ONLY', cpu: 'AMD EPYC 9654', ramGb: 384 };

describe('model, run, compare and hardware pages', () => {
  const ctx = useTestApp({}, { fakeHub: true });
  const ids: Record<string, string> = {};
  let profileA: string;
  let profileB: string;

  before(async () => {
    const { agent, csrf } = await signedUpAgent(ctx.app);
    const { key } = await createKey(agent, csrf);
    const runs: [name: string, overrides: Record<string, unknown>][] = [
      ['dense4090', { hardware: rtx4090, tokSOut: 150, tokSPrefill: 3000, prefillTokens: 4096, peakVramGb: 6.2 }],
      ['dense4090win', { hardware: rtx4090Windows, tokSOut: 120, tokSPrefill: 2500, prefillTokens: 16384 }],
      ['denseM4', { hardware: m4Max, tokSOut: 60, peakVramGb: 7.5 }],
      ['denseThroughput', { hardware: rtx4090, tokSOut: 1700, batchSize: 4 }],
      ['finetune4090', { hfId: fakeHubModels.finetune, hardware: rtx4090, tokSOut: 400 }],
      ['quantEpyc', { hfId: fakeHubModels.ggufQuant, hardware: epyc, tokSOut: 12 }],
    ];
    for (const [name, run] of runs) {
      ctx.clock.advance(61_000);
      const res = await request(ctx.app)
        .post('/api/speed-tests')
        .set('Authorization', `Bearer ${key}`)
        .send(validSubmission({ ttftMs: undefined, ...run }))
        .expect(201);
      ids[name] = res.body.id;
    }
    profileA = (await request(ctx.app).get(`/api/speed-tests/${ids.dense4090}`).expect(200)).body.hardwareId;
    profileB = (await request(ctx.app).get(`/api/speed-tests/${ids.dense4090win}`).expect(200)).body.hardwareId;
  });

  describe('a model page: one scope for figures, charts and table', () => {
    it('counts this model alone by default: the figures, the fastest run and the table agree', async () => {
      const res = await request(ctx.app).get(`/models/${fakeHubModels.dense}`).expect(200);
      const figures = region(res.text, 'model-figures');
      expect(figures).to.include('<strong>4</strong> approved runs on 3 hardware profiles.');
      // Single-stream first (issue 36); the throughput leader marked as such.
      expect(figures).to.include(`Fastest single-stream: <a href="/runs/${ids.dense4090}"><strong>150</strong>`);
      expect(figures).to.include(
        `Fastest throughput run: <a href="/runs/${ids.denseThroughput}"><strong>1,700</strong> output tok/s</a> <span class="badge badge-muted">×4 streams</span>`,
      );
      expect(figures.indexOf('Fastest single-stream')).to.be.lessThan(figures.indexOf('Fastest throughput run'));
      // Best by class: single-stream runs only (not the 1,700 of four streams).
      expect(res.text).to.match(/<th scope="row">Discrete GPU<\/th><td class="num">150 tok\/s<\/td><td class="num muted">2 runs<\/td>/);
      expect(res.text).not.to.include('1,700 tok/s</td>');
      expect(region(res.text, 'model-runs-count')).to.include('4 runs, newest first, showing 1–4.');
      const table = region(res.text, 'model-runs');
      for (const name of ['dense4090', 'dense4090win', 'denseM4', 'denseThroughput']) expect(table).to.include(`/runs/${ids[name]}"`);
      expect(table).not.to.include(`/runs/${ids.finetune4090}"`);
      expect(res.text).to.match(/<a href="\/models\/fakeorg\/Dense-7B" aria-current="page">This model<\/a>/);
      // The charts sit above the table and draw its single-stream runs, the throughput run left out (issue 36).
      expect(region(res.text, 'charts-streams')).to.include('The charts draw single-stream runs');
      const charts = res.text.slice(res.text.indexOf('id="model-charts-title"'), res.text.indexOf('id="model-runs"'));
      expect(charts).to.include(`href="/runs/${ids.dense4090}"`);
      expect(charts).not.to.include(`href="/runs/${ids.denseThroughput}"`);
      expect(res.text.indexOf('Prefill against decode speed')).to.be.lessThan(res.text.indexOf('id="model-runs"'));
      // Prefill against decode, and speed against depth: the runs that state them, drawn for wide screens and phones.
      const chart = (title: string) => {
        const at = res.text.indexOf(`${title}: Dense-7B</title>`);
        expect(at, title).to.be.greaterThan(-1);
        return res.text.slice(at, res.text.indexOf('</svg>', at));
      };
      for (const title of ['Prefill against decode speed', 'Output speed against context depth']) {
        const svg = chart(title);
        expect(svg, title).to.include(`href="/runs/${ids.dense4090}"`);
        expect(svg, title).to.include(`href="/runs/${ids.dense4090win}"`);
        expect(svg, title).not.to.include(`href="/runs/${ids.denseM4}"`);
      }
      expect(chart('Output speed against context depth')).to.include('at 16,384 tokens deep');
      expect(res.text.match(/<title id="[^"]+">Prefill against decode speed: Dense-7B<\/title>/g)).to.have.length(2);
      expect(res.text).not.to.include('id="no-depth-data"');
    });

    it('says "no depth data" instead of drawing an empty depth chart when no run stated its depth', async () => {
      const res = await request(ctx.app).get(`/models/${fakeHubModels.finetune}`).expect(200);
      expect(region(res.text, 'no-depth-data')).to.include('No depth data');
      expect(res.text).not.to.include('Output speed against context depth');
    });

    it('counts the model with its finetunes and quantizations under ?scope=tree, figures and table alike', async () => {
      const res = await request(ctx.app).get(`/models/${fakeHubModels.dense}?scope=tree`).expect(200);
      const figures = region(res.text, 'model-figures');
      expect(figures).to.include('<strong>6</strong> approved runs on 4 hardware profiles, across 3 models of the tree.');
      expect(figures).to.include(`Fastest single-stream: <a href="/runs/${ids.finetune4090}"><strong>400</strong>`);
      expect(region(res.text, 'model-runs-count')).to.include('6 runs, newest first');
      expect(region(res.text, 'model-runs')).to.include(`/runs/${ids.quantEpyc}"`);
      expect(res.text).to.match(/href="\/models\/fakeorg\/Dense-7B\?scope=tree" aria-current="page">With its finetunes and quantizations/);
      // The tree's best-by-class counts the CPU run of the quantization.
      expect(res.text).to.match(/<th scope="row">CPU only<\/th><td class="num">12 tok\/s<\/td><td class="num muted">1 run<\/td>/);
    });

    it('pages the table with links that keep the scope; htmx gets the table region alone', async () => {
      const res = await request(ctx.app).get(`/models/${fakeHubModels.dense}?scope=tree&limit=2`).expect(200);
      expect(region(res.text, 'model-runs-count')).to.include('6 runs, newest first, showing 1–2.');
      expect(res.text).to.include(`href="/models/${fakeHubModels.dense}?limit=2&amp;scope=tree&amp;offset=2"`);
      const next = await request(ctx.app)
        .get(`/models/${fakeHubModels.dense}?limit=2&scope=tree&offset=2`)
        .set('HX-Request', 'true')
        .expect(200);
      expect(next.text.trim()).to.match(/^<section id="model-runs"/);
      expect(next.text).to.include('showing 3–4.');
      expect(next.text).to.include('← Previous');
      expect(next.text).to.include('Next →');
    });

    it('says so inline when the scope is not one it knows, and shows the model alone', async () => {
      const res = await request(ctx.app).get(`/models/${fakeHubModels.dense}?scope=everything`).expect(200);
      expect(res.text).to.include('<code>scope</code> Must be &#39;model&#39; (this model)');
      expect(region(res.text, 'model-figures')).to.include('<strong>4</strong> approved runs');
    });
  });

  describe('a run page', () => {
    it('shows the verdict, the ranks among its model and its hardware as the leaderboard ranks, and similar runs', async () => {
      const res = await request(ctx.app).get(`/runs/${ids.dense4090win}`).expect(200);
      expect(res.text).to.include('id="plausibility"');
      const board = await request(ctx.app).get('/api/leaderboard').query({ hfId: fakeHubModels.dense, batchSize: 1 }).expect(200);
      const place = board.body.rows.findIndex((row: { id: string }) => row.id === ids.dense4090win) + 1;
      expect(place).to.equal(2);
      const standing = region(res.text, 'run-standing');
      expect(standing).to.include(`<strong>#${place}</strong> of ${board.body.total} single-stream runs of`);
      expect(standing).to.include(
        `<strong>#1</strong> of 1 single-stream runs on <a href="/hardware/${profileB}">this hardware profile</a> (<a href="/hardware/nvidia-rtx-4090">NVIDIA GeForce RTX 4090</a>)`,
      );
      // Similar: the same model on discrete GPUs in the run's streams bucket (single-stream: not the
      // throughput run, issue 36), fastest first; not the M4 run, not itself.
      const similar = region(res.text, 'similar-runs');
      expect(similar).to.include(`/runs/${ids.dense4090}"`);
      expect(similar).not.to.include(`/runs/${ids.denseThroughput}"`);
      expect(similar).not.to.include(`/runs/${ids.denseM4}"`);
      expect(similar).not.to.include(`/runs/${ids.finetune4090}"`);
      expect(similar).to.include(`href="/compare?runs=${ids.dense4090win},${ids.dense4090}"`);
    });

    it('ranks a throughput run among runs of its streams, and the fastest single-stream run first on its hardware', async () => {
      const throughput = region((await request(ctx.app).get(`/runs/${ids.denseThroughput}`).expect(200)).text, 'run-standing');
      expect(throughput).to.include('<strong>#1</strong> of 1 runs of 4 streams of');
      const fastest = region((await request(ctx.app).get(`/runs/${ids.dense4090}`).expect(200)).text, 'run-standing');
      expect(fastest).to.match(/<strong>#1<\/strong> of 3 single-stream runs of/);
      // Profile A holds the dense and the finetune single-stream runs: the finetune's 400 leads.
      expect(fastest).to.include('<strong>#2</strong> of 2 single-stream runs on');
    });

    it('names the peak memory as what it is: VRAM on a discrete GPU, memory on a unified-memory machine (issue 36)', async () => {
      const gpu = await request(ctx.app).get(`/runs/${ids.dense4090}`).expect(200);
      expect(gpu.text).to.match(/<th scope="row">Peak VRAM<\/th><td class="num">6\.2 GB/);
      const unified = await request(ctx.app).get(`/runs/${ids.denseM4}`).expect(200);
      expect(unified.text).to.match(/<th scope="row">Peak memory<\/th><td class="num">7\.5 GB/);
      expect(unified.text).not.to.include('Peak VRAM');
      const compare = await request(ctx.app).get(`/compare?runs=${ids.dense4090},${ids.denseM4}`).expect(200);
      expect(compare.text).to.include('Peak memory (VRAM or unified)');
    });

    it("labels the prefill chart's log axis once (issue 36)", async () => {
      const page = await request(ctx.app).get(`/models/${fakeHubModels.dense}`).expect(200);
      expect(page.text).to.include('prefill tok/s (log scale)');
      expect(page.text).not.to.include('(log) (log scale)');
    });

    it('shows its link to copy (selectable without JavaScript; the button appears with it)', async () => {
      const res = await request(ctx.app).get(`/runs/${ids.dense4090}`).set('Host', 'bench.example:8080').expect(200);
      expect(res.text).to.include(`<input id="share-url" type="url" value="http://bench.example:8080/runs/${ids.dense4090}" readonly>`);
      expect(res.text).to.include('<button type="button" class="small" data-copy-from="share-url" hidden>Copy link</button>');
      expect(res.text).to.include('<script src="/js/copy-link.js" defer></script>');
      const script = await request(ctx.app).get('/js/copy-link.js').expect(200);
      expect(script.text).to.include('navigator.clipboard.writeText');
    });

    it('gives every row of a run table a "compare" box sent by a plain GET form', async () => {
      const res = await request(ctx.app).get(`/models/${fakeHubModels.dense}`).expect(200);
      expect(res.text).to.include(`<input type="checkbox" name="runs" value="${ids.dense4090}" form="compare-runs">`);
      expect(res.text).to.include('<form id="compare-runs" class="compare-form" method="get" action="/compare">');
    });
  });

  describe('the compare view', () => {
    it('puts 2 to 4 runs side by side, marks the rows that differ and the best figure', async () => {
      const res = await request(ctx.app).get(`/compare?runs=${ids.dense4090},${ids.denseM4},${ids.quantEpyc}`).expect(200);
      expect(res.text).to.include('<title>Compare 3 runs');
      const rows = [...res.text.matchAll(/<tr( class="differs")?>\s*<th scope="row">([^<]+)/g)].map((m) => [m[2]!.trim(), Boolean(m[1])]);
      expect(Object.fromEntries(rows)).to.include({
        Model: true,
        'Hardware class': true,
        Engine: false,
        Quantization: false,
        'Output tok/s': true,
      });
      expect(res.text).to.match(/<td class="best"><strong>150<\/strong><span class="visually-hidden"> \(best\)<\/span><\/td>/);
      expect(res.text.indexOf(`/runs/${ids.dense4090}"`)).to.be.lessThan(res.text.indexOf(`/runs/${ids.denseM4}"`));
    });

    it("marks a throughput run's aggregate figures and names no best between one stream and four (issue 36)", async () => {
      const res = await request(ctx.app).get(`/compare?runs=${ids.dense4090},${ids.denseThroughput}`).expect(200);
      const output = res.text.slice(
        res.text.indexOf('<th scope="row">Output tok/s'),
        res.text.indexOf('</tr>', res.text.indexOf('<th scope="row">Output tok/s')),
      );
      expect(output).to.include('<td>150</td>');
      expect(output).to.include('<td>1,700 (×4 streams)</td>');
      expect(output).not.to.include('class="best"');
      // Prefill is per run, not summed over streams: its best stays marked.
      const same = await request(ctx.app).get(`/compare?runs=${ids.dense4090},${ids.dense4090win}`).expect(200);
      expect(same.text).to.match(/<td class="best"><strong>150<\/strong>/);
    });

    it('answers the row boxes (one parameter per run) at the short address', async () => {
      const res = await request(ctx.app).get(`/compare?runs=${ids.dense4090}&runs=${ids.denseM4}`).expect(302);
      expect(res.headers.location).to.equal(`/compare?runs=${ids.dense4090},${ids.denseM4}`);
    });

    it('explains instead of failing: no runs, one run, too many, not ids, unknown ids', async () => {
      const none = await request(ctx.app).get('/compare').expect(200);
      expect(region(none.text, 'compare-problems')).to.include('Pick 2 to 4 runs to compare');
      expect(none.text).to.include('<form class="compare-ids" method="get" action="/compare">');
      const one = await request(ctx.app).get(`/compare?runs=${ids.dense4090}`).expect(400);
      expect(one.text).to.include('Pick 2 to 4 runs to compare');
      expect(one.text).to.include(`value="${ids.dense4090}"`);
      const five = Object.values(ids).slice(0, 5).join(',');
      expect((await request(ctx.app).get(`/compare?runs=${five}`).expect(400)).text).to.include('At most 4 runs side by side');
      const bad = await request(ctx.app).get(`/compare?runs=${ids.dense4090},not-a-run`).expect(400);
      expect(bad.text).to.include('Not run ids: “not-a-run”');
      const unknown = '00000000-0000-4000-8000-000000000000';
      const missing = await request(ctx.app).get(`/compare?runs=${ids.dense4090},${unknown}`).expect(404);
      expect(missing.text).to.include(`No approved run has the id ${unknown}`);
      expect(missing.text).to.include('<form class="compare-ids"');
    });
  });

  describe('hardware', () => {
    it('lists devices at /hardware with catalogue specs, runs and machines', async () => {
      const res = await request(ctx.app).get('/hardware').expect(200);
      expect(res.text).to.include('3 devices.');
      expect(res.text).to.match(
        /<a href="\/hardware\/nvidia-rtx-4090">NVIDIA GeForce RTX 4090<\/a><\/td>\s*<td>GPU<\/td>\s*<td class="num">24 GB<\/td>\s*<td class="num">1,008 GB\/s<\/td>\s*<td class="num">4<\/td>\s*<td class="num">2<\/td>/,
      );
      expect(res.text).to.include('<a href="/hardware/apple-m4-max">Apple M4 Max</a>');
      expect(res.text).to.include('<a href="/hardware/amd-epyc-9654">AMD EPYC 9654</a>');
    });

    it('gathers one device across its profiles: specs, best single-stream run per model, a chart and its machines', async () => {
      const res = await request(ctx.app).get('/hardware/nvidia-rtx-4090').expect(200);
      expect(res.text).to.include('<h1>NVIDIA GeForce RTX 4090</h1>');
      expect(region(res.text, 'device-specs')).to.match(/Memory bandwidth<\/th><td>1,008 GB\/s/);
      const machines = region(res.text, 'device-profiles');
      expect(machines).to.include(`href="/hardware/${profileA}"`);
      expect(machines).to.include(`href="/hardware/${profileB}"`);
      const best = region(res.text, 'device-best');
      expect(best).to.include('2 models, each with its fastest single-stream run on this device');
      expect(best.indexOf(`/runs/${ids.finetune4090}"`)).to.be.lessThan(best.indexOf(`/runs/${ids.dense4090}"`));
      expect(best).not.to.include(`/runs/${ids.dense4090win}"`);
      expect(best).not.to.include(`/runs/${ids.denseThroughput}"`);
      expect(res.text).to.include('Output tok/s by model: NVIDIA GeForce RTX 4090');
    });

    it('states peak FP16 beside bandwidth and cache, with its unit and source, or why it is absent', async () => {
      const gpu = region((await request(ctx.app).get('/hardware/nvidia-rtx-4090').expect(200)).text, 'device-specs');
      expect(gpu).to.match(/Last-level cache<\/th><td>72 MB<\/td>/);
      expect(gpu).to.match(/Peak FP16<\/th><td id="device-fp16">165\.2 TFLOPS <span class="muted">\(dense, no sparsity\)<\/span><\/td>/);
      expect(gpu.indexOf('Memory bandwidth')).to.be.lessThan(gpu.indexOf('Peak FP16'));
      expect(region(gpu, 'device-source')).to.include('Tensor FP16 with FP32 accumulate');
      // The catalogue holds no sourced figure for the M4 Max, nor any for CPUs: said, not guessed.
      const chip = region((await request(ctx.app).get('/hardware/apple-m4-max').expect(200)).text, 'device-fp16');
      expect(chip).to.include('no sourced figure');
      expect(chip).not.to.include('TFLOPS');
      const cpu = region((await request(ctx.app).get('/hardware/amd-epyc-9654').expect(200)).text, 'device-fp16');
      expect(cpu).to.include('not held for CPUs');
    });

    it('links a profile page up to its device', async () => {
      const res = await request(ctx.app).get(`/hardware/${profileB}`).expect(200);
      expect(res.text).to.include('<a href="/hardware/nvidia-rtx-4090" id="device-link">NVIDIA GeForce RTX 4090</a>');
    });

    it('answers an unknown device or a malformed address with the not-found page', async () => {
      const unknown = await request(ctx.app).get('/hardware/nvidia-rtx-9999').expect(404);
      expect(unknown.text).to.include('No runs on a device by that name');
      expect(unknown.text).to.include('<html');
      await request(ctx.app).get('/hardware/Not_A_Slug').expect(404);
      await request(ctx.app).get('/hardware/00000000-0000-4000-8000-000000000000').expect(404);
    });
  });

  describe('after submitting through the form', () => {
    /** A new account's run submitted through the form: its agent, and the redirect to the run's page. */
    async function submittedThroughForm() {
      const { agent, csrf } = await signedUpAgent(ctx.app);
      ctx.clock.advance(61_000);
      const res = await agent
        .post('/submit')
        .type('form')
        .send({
          _csrf: csrf,
          hfId: fakeHubModels.dense,
          'hardware.hwClass': 'DISCRETE_GPU',
          'hardware.gpuName': 'NVIDIA GeForce RTX 4090',
          'hardware.vramGb': '24',
          engineName: 'llama.cpp',
          quantization: 'Q4_K_M',
          tokSOut: '99',
        })
        .expect(303);
      return { agent, res };
    }

    it('confirms the submission once on the run page, to the submitter only', async () => {
      const { agent, res } = await submittedThroughForm();
      const first = await agent.get(res.headers.location!).expect(200);
      expect(first.text).to.include('Run submitted: it is on the leaderboard now.');
      expect((await agent.get(res.headers.location!).expect(200)).text).not.to.include('Run submitted');
      expect((await request(ctx.app).get(res.headers.location!).expect(200)).text).not.to.include('Run submitted');
    });

    it('says what the owner was just sent back for (?done=) rather than a submission notice still in the session', async () => {
      const { agent, res } = await submittedThroughForm();
      // As when a request that overlapped the first view saved the session back with the notice in it.
      const corrected = (await agent.get(`${res.headers.location!}?done=corrected`).expect(200)).text;
      expect(corrected).to.include('Correction saved').and.not.include('Run submitted');
      expect((await agent.get(res.headers.location!).expect(200)).text).not.to.include('Run submitted');
    });
  });
});
