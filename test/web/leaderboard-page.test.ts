/** The leaderboard page (issue 17): the ranked column, sorting headers, efficiency figures, filters as people type them, and its edges. */
import { expect } from 'chai';
import request from 'supertest';
import { signedUpAgent, useTestApp } from '../helpers/app.ts';
import { fakeHubModels } from '../helpers/fake-hub.ts';
import { createSeeder, revision } from '../helpers/leaderboard.ts';

describe('the leaderboard page', () => {
  // strict: a run is rejected straight in the database, and the next chart must leave it out.
  const ctx = useTestApp({ API_REVISION: '3', READ_INDEX_FRESHNESS: 'strict' }, { fakeHub: true });
  const seeder = createSeeder(ctx, revision(3));
  const RTX = { hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA GeForce RTX 4090', vramGb: 24, powerWatts: 450 };
  const TWO_CARDS = { hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA GeForce RTX 3090', gpuCount: 2, vramGb: 24 };
  const MAC = { hwClass: 'UNIFIED', chipVendor: 'Apple', chipFamily: 'M4', chipVariant: 'Max', unifiedMemoryGb: 128 };
  const cost = (price: number) => ({ component: 'NVIDIA GeForce RTX 4090', condition: 'NEW', yearPurchased: 2024, price, currency: 'USD' });

  before(async () => {
    const user = await seeder.signUp('ranker');
    await seeder.seedRun('rtx', user, {
      hardware: RTX,
      tokSOut: 150,
      tokSPrefill: 3000,
      ttftMs: 90,
      quantization: 'Q4_K_M',
      hardwareCost: [cost(1600)],
    });
    await seeder.seedRun('two', user, { hardware: TWO_CARDS, tokSOut: 120, tokSPrefill: 5000, ttftMs: 150, quantization: 'Q8_0' });
    await seeder.seedRun('mac', user, { hardware: MAC, tokSOut: 60, ttftMs: 400, quantization: 'Q4_K_M', engineName: 'mlx' });
  });

  const rowsOf = (html: string) => [...html.matchAll(/<tr>\s*<td class="num rank">(\d+)<\/td>([\s\S]*?)<\/tr>/g)].map((m) => m[2]!);
  const idOf = (label: string) => seeder.runs.get(label)!.id as string;
  const rankedIds = (html: string) => rowsOf(html).map((row) => /href="\/runs\/([^"]+)"/.exec(row)![1]);

  describe('the ranked metric', () => {
    const cases = [
      ['tokSOut', 'tok/s out', ['rtx', 'two', 'mac']],
      ['tokSPrefill', 'prefill tok/s', ['two', 'rtx', 'mac']],
      ['ttftMs', 'TTFT ms', ['rtx', 'two', 'mac']],
      // The efficiency rankings hold only the runs with the figure (issue 36): here the RTX run alone.
      ['tokPerWatt', 'tok/W', ['rtx']],
      ['tokPerDollar', 'tok/$', ['rtx']],
    ] as const;
    for (const [sort, heading, order] of cases) {
      it(`is a highlighted column when ranking by ${sort}, its header marked as the sort`, async () => {
        const res = await request(ctx.app)
          .get(sort === 'tokSOut' ? '/' : `/?sort=${sort}`)
          .expect(200);
        const header = new RegExp(
          `<th class="num sorted" scope="col" aria-sort="(ascending|descending)"><a href="[^"]*"[^>]*>${heading.replace('$', '\\$')}</a>`,
        ).exec(res.text);
        expect(header, heading).to.not.equal(null);
        expect(header![1]).to.equal(sort === 'ttftMs' ? 'ascending' : 'descending');
        expect(res.text.match(/<th class="num sorted"/g)).to.have.length(1);
        // Every row's cell of that metric is highlighted too.
        for (const row of rowsOf(res.text)) expect(row.match(/<td class="num [a-z ]*sorted"/g), heading).to.have.length(1);
        expect(rankedIds(res.text)).to.deep.equal(order.map(idOf));
        expect(res.text).to.match(/<caption class="visually-hidden">Runs ranked by [^<]+<\/caption>/);
      });
    }

    it('sorts by plain links in the headers (htmx-enhanced), keeping the filters and dropping the page', async () => {
      const res = await request(ctx.app).get('/?engineName=llama.cpp&offset=0&sort=ttftMs').expect(200);
      expect(res.text).to.include(
        '<a href="/?engineName=llama.cpp&amp;sort=tokSPrefill" hx-get="/?engineName=llama.cpp&amp;sort=tokSPrefill" hx-target="#results" hx-swap="outerHTML" hx-push-url="true" title="Rank by prefill tok/s">prefill tok/s</a>',
      );
      // The default sort leaves the address.
      expect(res.text).to.include(
        '<a href="/?engineName=llama.cpp" hx-get="/?engineName=llama.cpp" hx-target="#results" hx-swap="outerHTML" hx-push-url="true" title="Rank by output tok/s">tok/s out</a>',
      );
      // The ranking travels with the filter form.
      expect(res.text).to.include('<input type="hidden" name="sort" value="ttftMs" form="leaderboard-filters">');
      expect(res.text).to.match(
        /<nav class="rank-by" aria-label="Rank by">[\s\S]*<strong aria-current="true">time to first token<\/strong>/,
      );
    });

    it('lets any row be ticked for the compare view: one box per row, sent by one GET form to /compare', async () => {
      const res = await request(ctx.app).get('/').expect(200);
      const rows = rowsOf(res.text);
      expect(rows).to.have.length(3);
      rows.forEach((row, i) => {
        const box = /<input type="checkbox" name="runs" value="([^"]+)" form="compare-runs">/.exec(row);
        expect(box, `row ${i + 1}`).to.not.equal(null);
        expect(box![1]).to.equal(rankedIds(res.text)[i]);
      });
      expect(res.text).to.match(/<form id="compare-runs" class="compare-form" method="get" action="\/compare">/);
    });

    it('explains tok/W and tok/$, and ranks only the runs with the figure, saying how many have it (issue 36)', async () => {
      const watts = await request(ctx.app).get('/?sort=tokPerWatt').expect(200);
      expect(watts.text).to.match(
        /<p class="metric-note" id="metric-note"><strong>tok\/W<\/strong> is output tokens per second divided by the power in watts/,
      );
      expect(watts.text).to.include('<a href="/methodology#efficiency">How it is worked out</a>');
      const [rtx, ...others] = rowsOf(watts.text);
      // The figure says where its power came from: typed watts are stated.
      expect(rtx).to.match(
        /<td class="num metric sorted" data-label="tok\/W">0\.333 <span class="badge badge-muted power-source" data-power-source="stated"[^>]*>stated<span class="visually-hidden"> power<\/span><\/span><\/td>/,
      );
      expect(others, 'the runs without a power figure are not ranked').to.deep.equal([]);
      expect(watts.text).to.include('<strong id="figure-count">1 of 3</strong> runs here have one.');
      expect(watts.text).to.match(/<p class="muted" id="run-count">1 run, showing 1–1\./);
      const dollars = await request(ctx.app).get('/?sort=tokPerDollar').expect(200);
      expect(dollars.text).to.match(/<strong>tok\/\$<\/strong> is output tokens per second divided by the hardware’s price in US dollars/);
      expect(rowsOf(dollars.text)[0]).to.include('data-label="tok/$">0.0938</td>');
      expect(rowsOf(dollars.text)).to.have.length(1);
      expect(dollars.text).to.include('<strong id="figure-count">1 of 3</strong> runs here have them.');
      // With a filter no run with prices meets: says so, and offers the speed ranking.
      const none = await request(ctx.app).get('/?sort=tokPerDollar&hwClass=UNIFIED').expect(200);
      expect(none.text).to.include('None of these runs has the figure this ranking needs.');
      // Ranked by speed, the efficiency columns stay out of the way.
      const plain = await request(ctx.app).get('/').expect(200);
      expect(plain.text).not.to.include('no power figure');
      expect(plain.text).not.to.include('id="metric-note"');
      const methodology = await request(ctx.app).get('/methodology').expect(200);
      expect(methodology.text).to.include('<h2 id="efficiency">Efficiency: tok/W and tok/$</h2>');
    });
  });

  describe('rows', () => {
    it('say what units mean and use human labels', async () => {
      const res = await request(ctx.app).get('/').expect(200);
      expect(res.text).to.include('2× NVIDIA GeForce RTX 3090 · 24 GB each');
      expect(res.text).to.include('<option value="DISCRETE_GPU">Discrete GPU</option>');
      expect(res.text).to.include('<option value="CPU_ONLY">CPU only</option>');
      expect(res.text).not.to.match(/>\s*(DISCRETE_GPU|UNIFIED|CPU_ONLY)\s*</);
    });

    it('list the engines with runs (common first, the rest alphabetically), and those without runs apart', async () => {
      const res = await request(ctx.app).get('/').expect(200);
      const select = /<select id="lb-engineName"[\s\S]*?<\/select>/.exec(res.text)![0];
      const group = (label: string) =>
        [...(new RegExp(`<optgroup label="${label}">([\\s\\S]*?)<\\/optgroup>`).exec(select)?.[1] ?? '').matchAll(/value="([^"]+)"/g)].map(
          (m) => m[1],
        );
      // The seeded runs ran on llama.cpp and mlx.
      expect(group('Common')).to.deep.equal(['llama.cpp', 'mlx']);
      expect(group('Others')).to.deep.equal([]);
      const none = group('No runs yet');
      expect(none.slice(0, 2)).to.deep.equal(['ollama', 'vllm']);
      expect(none).to.include('atlas').and.not.include('llama.cpp');
      expect(select).to.include('>vllm (no runs)</option>');
    });

    it('show five filters and put the rest behind "More filters", opened when one of them is set', async () => {
      const res = await request(ctx.app).get('/').expect(200);
      const [main, more] = res.text.split('<details class="more-filters"');
      for (const name of ['hfId', 'hardwareName', 'hwClass', 'engineName', 'quantization']) expect(main, name).to.include(`name="${name}"`);
      for (const name of ['memTier', 'os', 'bestPer', 'plausible']) expect(more, name).to.include(`name="${name}"`);
      expect(more!.startsWith('>')).to.equal(true);
      const set = await request(ctx.app).get('/?os=linux&plausible=true').expect(200);
      expect(set.text).to.include('<details class="more-filters" open>');
      expect(set.text).to.include('<summary>More filters (2 set)</summary>');
    });
  });

  describe('filters as people type them', () => {
    for (const [typed, expected] of [
      ['M4 Max', ['mac']],
      ['Apple M4 Max', ['mac']],
      ['max m4', ['mac']],
      ['4090 rtx', ['rtx']],
      ['nvidia 3090', ['two']],
    ] as const) {
      it(`finds hardware named “${typed}”`, async () => {
        const res = await request(ctx.app).get('/').query({ hardwareName: typed }).expect(200);
        expect(rankedIds(res.text)).to.deep.equal(expected.map(idOf));
      });
    }

    it('reads a known quantization however it is spelled, and says so', async () => {
      const res = await request(ctx.app).get('/?quantization=q4_k_m').expect(200);
      expect(rankedIds(res.text)).to.deep.equal(['rtx', 'mac'].map(idOf));
      expect(res.text).to.include('<p class="view-note" id="quantization-read">Quantization “q4_k_m” read as <strong>Q4_K_M</strong>.</p>');
      expect(res.text).to.include('name="quantization" type="text" list="lb-quantizations" placeholder="Q4_K_M, q8_0" value="Q4_K_M"');
      expect(res.text).to.include('<datalist id="lb-quantizations"><option value="Q4_K_M"></option>');
      const exact = await request(ctx.app).get('/?quantization=Q8_0').expect(200);
      expect(rankedIds(exact.text)).to.deep.equal(['two'].map(idOf));
      expect(exact.text).not.to.include('quantization-read');
      // The API's filter stays exact.
      const api = await request(ctx.app).get('/api/leaderboard?quantization=q4_k_m').expect(200);
      expect(api.body.total).to.equal(0);
    });

    it('suggests models for the words typed, as datalist options', async () => {
      const res = await request(ctx.app).get('/leaderboard/model-suggestions').query({ hfId: '7b dense' }).expect(200);
      expect(res.text).to.include(`<option value="${fakeHubModels.dense}">Dense-7B · 3 runs</option>`);
      const short = await request(ctx.app).get('/leaderboard/model-suggestions').query({ hfId: 'd' }).expect(200);
      expect(short.text.trim()).to.equal('');
      const page = await request(ctx.app).get('/').expect(200);
      expect(page.text).to.include('list="model-suggestions"');
      expect(page.text).to.include(
        'hx-get="/leaderboard/model-suggestions" hx-trigger="input changed delay:250ms" hx-target="#model-suggestions"',
      );
      expect(page.text).to.include('<datalist id="model-suggestions"></datalist>');
    });
  });

  describe('edges: the page with its form and one inline message', () => {
    it('a page past the end', async () => {
      const res = await request(ctx.app).get('/?offset=999999').expect(200);
      expect(res.text).to.include('<form class="filters leaderboard-filters"');
      expect(res.text).to.include('3 runs. <a href=');
      expect(res.text).not.to.include('showing 1000000');
      expect(res.text).to.match(
        /<p class="alert alert-info" id="past-the-end">This page is past the end of the ranking: 3 runs match\. <a href="\/"[^>]*>First page<\/a>\s*·\s*<a href="\/"[^>]*>Last page<\/a>\s*<\/p>/,
      );
      expect(res.text).not.to.include('No runs match');
    });

    it('a too-long model search', async () => {
      const res = await request(ctx.app)
        .get('/')
        .query({ hfId: 'x'.repeat(300) })
        .expect(400);
      expect(res.text).to.include('<form class="filters leaderboard-filters"');
      expect(res.text).to.include('<p class="field-error" id="lb-hfId-error">Must be at most 256 characters</p>');
      expect(res.text).to.include('Some filters are not valid: see the marked fields above.');
    });

    it('a bad engine: one message, the engine list not spelled out', async () => {
      const res = await request(ctx.app).get('/?engineName=turbo').expect(400);
      expect(res.text).to.include('<form class="filters leaderboard-filters"');
      expect(res.text.match(/“turbo” is not one of the choices/g)).to.have.length(1);
      expect(res.text).not.to.include('Must be one of: llama.cpp');
      expect(res.text).to.include('aria-describedby="lb-engineName-error"');
    });

    it("the model list's too-long search too: its page, its form and the message", async () => {
      const res = await request(ctx.app)
        .get('/models')
        .query({ search: 'x'.repeat(300) })
        .expect(400);
      expect(res.text).to.include('<form class="inline model-search"');
      expect(res.text).to.match(
        /<div class="alert alert-error" role="alert" id="model-search-errors"><p>Search: Must be at most \d+ characters <a href="\/models">Show every model<\/a>\.<\/p><\/div>/,
      );
      const fragment = await request(ctx.app)
        .get('/models')
        .query({ search: 'x'.repeat(300) })
        .set('HX-Request', 'true')
        .expect(400);
      expect(fragment.text).not.to.include('<html');
      expect(fragment.text).to.include('id="model-search-errors"');
    });

    it('a bad page number is named, with a way back', async () => {
      const res = await request(ctx.app).get('/?offset=-3').expect(400);
      expect(res.text).to.include(
        'The page number in the address is not valid: Must be a whole number <a href="/">Show the ranking without it</a>.',
      );
      // Any other parameter the form does not hold is named the same way, with a link without it.
      const sort = await request(ctx.app).get('/?sort=fastest&hwClass=UNIFIED').expect(400);
      expect(sort.text).to.include(
        '<code>sort</code>: Must be one of tokSOut, tokSPrefill, ttftMs, tokPerWatt, tokPerDollar <a href="/?hwClass=UNIFIED">Show the ranking without it</a>.',
      );
    });
  });

  it('a compact reaction bar stays compact after an htmx click', async () => {
    const { agent, csrf } = await signedUpAgent(ctx.app, 'clicker');
    const page = await agent.get('/').expect(200);
    expect(page.text).to.match(
      /<details class="reaction-picker"><summary>React<span class="visually-hidden"> to this run<\/span><\/summary>/,
    );
    expect(page.text).to.include('<input type="hidden" name="compact" value="1">');
    const res = await agent
      .post(`/runs/${idOf('rtx')}/react`)
      .set('HX-Request', 'true')
      .type('form')
      .send({ _csrf: csrf, back: '/', compact: '1', emoji: 'fire' })
      .expect(200);
    expect(res.text).to.include('<details class="reaction-picker">');
    expect(res.text).to.match(/<span class="reaction" title="Fire">[\s\S]*?<span class="reaction-count">1<\/span>/);
  });
  it('draws the chart of the runs at the top now: a run that arrives or leaves changes it (the drawn chart is remembered per set of runs)', async () => {
    /** The run ids the chart links to (the scatter's points and the phone's bars). */
    const chartRunIds = async () => {
      const html = (await request(ctx.app).get('/').expect(200)).text;
      // The chart follows the table (issue 36: the top runs come first).
      const start = html.indexOf('<div class="chart-responsive">');
      const chart = html.slice(start, html.indexOf('</details>', start));
      expect(chart, 'the page has its chart').to.have.length.above(100);
      return new Set([...chart.matchAll(/href="\/runs\/([^"]+)"/g)].map((m) => m[1]));
    };
    const before = await chartRunIds();
    expect(await chartRunIds(), 'the same runs, the same chart').to.deep.equal(before);
    expect(before.has(idOf('rtx'))).to.equal(true);

    const user = await seeder.signUp('charter');
    const fastId = (
      await seeder.seedRun('chart-fast', user, { hfId: fakeHubModels.moeByConfig, hardware: RTX, tokSOut: 190, quantization: 'Q4_K_M' })
    ).id as string;
    const arrived = await chartRunIds();
    expect(arrived.has(fastId), 'a new run is drawn').to.equal(true);

    await ctx.db('speed_test_runs').where({ id: fastId }).update({ status: 'REJECTED' });
    const left = await chartRunIds();
    expect(left.has(fastId), 'a rejected run leaves the chart').to.equal(false);
    expect(left).to.deep.equal(before);
  });
});
