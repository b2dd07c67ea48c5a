import { expect } from 'chai';
import request from 'supertest';
import { useTestApp } from '../helpers/app.ts';
import { fakeHubModels } from '../helpers/fake-hub.ts';
import { account, auditRowsFor, submitRun, type Account } from '../helpers/moderation.ts';

const HOUR = 3_600_000;

/** A form field's value as the page renders it (inputs and textareas). */
function fieldValue(html: string, name: string): string | undefined {
  const input = new RegExp(`<input[^>]*name="${name.replace('.', '\\.')}"[^>]*value="([^"]*)"`).exec(html);
  if (input) return input[1];
  return new RegExp(`<textarea[^>]*name="${name.replace('.', '\\.')}"[^>]*>([^<]*)</textarea>`).exec(html)?.[1];
}

describe('owners fix their runs on the pages', () => {
  const ctx = useTestApp({}, { fakeHub: true });
  let owner: Account;
  let other: Account;

  before(async () => {
    owner = await account(ctx, 'owner');
    other = await account(ctx, 'other');
  });

  const newRun = (overrides: Record<string, unknown> = {}) =>
    submitRun(ctx, owner, { engineFlags: { commandSnippet: 'llama-server -m model.gguf -ngl 99' }, notes: 'first take', ...overrides });
  const apiRun = async (id: string) => (await request(ctx.app).get(`/api/speed-tests/${id}`)).body;
  /** The correction form as the browser posts it: every field the page shows, `changes` on top. */
  const correctionForm = (changes: Record<string, string> = {}) => ({
    _csrf: owner.csrf,
    hfId: fakeHubModels.dense,
    modelRevision: 'main',
    quantization: 'Q4_K_M',
    engineName: 'llama.cpp',
    engineVersion: '',
    backend: '',
    'hardware.hwClass': 'DISCRETE_GPU',
    'hardware.gpuName': 'RTX 4090',
    'hardware.gpuCount': '1',
    'hardware.vramGb': '24',
    tokSOut: '42.5',
    ttftMs: '180',
    promptTokens: '0',
    outputTokens: '0',
    contextLength: '2048',
    batchSize: '1',
    'engineFlags.commandSnippet': 'llama-server -m model.gguf -ngl 99',
    'engineFlags.gpuLayers': '99',
    notes: 'first take',
    ...changes,
  });

  it('shows the owner "Correct this run" and "Withdraw" on the run page, and nobody else', async () => {
    const run = await newRun();
    const page = (await owner.agent.get(`/runs/${run.id}`).expect(200)).text;
    expect(page).to.include('id="owner-panel"');
    expect(page).to.include(`href="/runs/${run.id}/correct"`);
    expect(page).to.match(new RegExp(`<form[^>]*action="/runs/${run.id}/withdraw"[^>]*hx-confirm=`));
    expect(page).to.include(`name="_csrf" value="${owner.csrf}"`);
    for (const res of [await other.agent.get(`/runs/${run.id}`), await request(ctx.app).get(`/runs/${run.id}`)]) {
      expect(res.status).to.equal(200);
      expect(res.text).to.not.include('id="owner-panel"');
    }
  });

  it("fills the correction form with the run's fields, and refuses it to others and after 24 hours", async () => {
    const run = await newRun({ contextLength: 8192 });
    const form = (await owner.agent.get(`/runs/${run.id}/correct`).expect(200)).text;
    expect(form).to.include(`action="/runs/${run.id}/correct"`);
    expect(form).to.include('Save the correction');
    expect(fieldValue(form, 'hfId')).to.equal(fakeHubModels.dense);
    expect(fieldValue(form, 'hardware.gpuName')).to.equal('RTX 4090');
    expect(fieldValue(form, 'tokSOut')).to.equal('42.5');
    expect(fieldValue(form, 'contextLength')).to.equal('8192');
    expect(fieldValue(form, 'engineFlags.gpuLayers')).to.equal('99');
    expect(fieldValue(form, 'engineFlags.commandSnippet')).to.equal('llama-server -m model.gguf -ngl 99');
    expect(fieldValue(form, 'notes')).to.equal('first take');

    await other.agent.get(`/runs/${run.id}/correct`).expect(404);
    const anonymous = await request(ctx.app).get(`/runs/${run.id}/correct`).expect(303);
    expect(anonymous.headers.location).to.match(/^\/signin\?next=/);
    ctx.clock.advance(24 * HOUR + 1000);
    const late = await owner.agent.get(`/runs/${run.id}/correct`).expect(409);
    expect(late.text).to.include('Runs can be corrected within 24 hours of submitting');
    const page = (await owner.agent.get(`/runs/${run.id}`).expect(200)).text;
    expect(page).to.not.include(`href="/runs/${run.id}/correct"`);
    expect(page).to.include('can no longer be corrected');
  });

  it('saves a correction from the form (post/redirect/get): emptied fields dropped, the change audited', async () => {
    const run = await newRun();
    const res = await owner.agent
      .post(`/runs/${run.id}/correct`)
      .type('form')
      .send(correctionForm({ tokSOut: '38.2', ttftMs: '', notes: '' }))
      .expect(303);
    expect(res.headers.location).to.equal(`/runs/${run.id}?done=corrected`);
    expect(await apiRun(run.id)).to.include({ tokSOut: 38.2, ttftMs: null, notes: null, contextLength: 2048 });
    const page = (await owner.agent.get(res.headers.location).expect(200)).text;
    expect(page).to.include('Correction saved');
    const [entry] = await auditRowsFor(ctx, run.id);
    expect(entry).to.include({ action: 'speed_test.corrected', actor_id: owner.id });
    expect(entry.reason).to.include('tokSOut: 42.5 -> 38.2');
  });

  it("edits a mixed-GPU run's cards in the form: the first kind in the single-GPU fields, the others as rows", async () => {
    const gpus = [
      { gpuName: 'RTX 4090', count: 1, vramGb: 24 },
      { gpuName: 'RTX 3090', count: 1, vramGb: 24 },
    ];
    const run = await newRun({ hardware: { hwClass: 'DISCRETE_GPU', gpus } });
    const form = (await owner.agent.get(`/runs/${run.id}/correct`).expect(200)).text;
    expect(fieldValue(form, 'hardware.gpuName')).to.equal('RTX 4090');
    expect(fieldValue(form, 'hardware.gpus.1.gpuName')).to.equal('RTX 3090');
    const row = (count: string) => ({
      'hardware.gpus.1.gpuName': 'RTX 3090',
      'hardware.gpus.1.count': count,
      'hardware.gpus.1.vramGb': '24',
    });
    // Posted back as shown, with the speed changed: the cards stay as they were.
    await owner.agent
      .post(`/runs/${run.id}/correct`)
      .type('form')
      .send(correctionForm({ tokSOut: '40', ...row('1') }))
      .expect(303);
    const corrected = await apiRun(run.id);
    expect(corrected.tokSOut).to.equal(40);
    expect(corrected.hardware).to.deep.equal(run.hardware);
    // A second 3090 in the row: the machine now has three cards.
    await owner.agent
      .post(`/runs/${run.id}/correct`)
      .type('form')
      .send(correctionForm({ tokSOut: '40', ...row('2') }))
      .expect(303);
    expect((await apiRun(run.id)).hardware.gpuCount).to.equal(3);
  });

  it('shows field errors inline and keeps what was typed; without the CSRF token nothing changes', async () => {
    const run = await newRun();
    const res = await owner.agent
      .post(`/runs/${run.id}/correct`)
      .type('form')
      .send(correctionForm({ tokSOut: '-3', 'hardware.vramGb': '' }))
      .expect(400);
    expect(res.text).to.include('Some fields need attention.');
    expect(res.text).to.include('id="f-tokSOut-error">Must be more than 0.</p>');
    expect(res.text).to.include('id="f-hardware-vramGb-error">Type how much memory one GPU has, in GB.</p>');
    expect(fieldValue(res.text, 'tokSOut')).to.equal('-3');
    await owner.agent
      .post(`/runs/${run.id}/correct`)
      .type('form')
      .send({ ...correctionForm({ tokSOut: '1' }), _csrf: undefined })
      .expect(403);
    await other.agent
      .post(`/runs/${run.id}/correct`)
      .type('form')
      .send({ ...correctionForm({ tokSOut: '1' }), _csrf: other.csrf })
      .expect(404);
    expect((await apiRun(run.id)).tokSOut).to.equal(42.5);
  });

  it('asks before withdrawing without JavaScript, then withdraws: the owner sees the status, others a 404', async () => {
    const run = await newRun();
    const ask = await owner.agent.post(`/runs/${run.id}/withdraw`).type('form').send({ _csrf: owner.csrf }).expect(200);
    expect(ask.text).to.include('Withdraw this run?');
    expect(ask.text).to.include('name="confirm" value="yes"');
    expect((await apiRun(run.id)).status).to.equal('APPROVED');

    const done = await owner.agent.post(`/runs/${run.id}/withdraw`).type('form').send({ _csrf: owner.csrf, confirm: 'yes' }).expect(303);
    expect(done.headers.location).to.equal(`/runs/${run.id}?done=withdrawn`);
    const page = (await owner.agent.get(done.headers.location).expect(200)).text;
    expect(page).to.include('id="status-banner"');
    expect(page).to.include('This run is withdrawn');
    expect(page).to.not.match(/action="\/runs\/[^"]+\/withdraw"/);
    // Its JSON is among the owner's runs (the public address answers 404 now).
    expect(page).to.include('href="/api/speed-tests/mine"');
    expect(page).to.not.include(`href="/api/speed-tests/${run.id}"`);
    await other.agent.get(`/runs/${run.id}`).expect(404);
    await request(ctx.app).get(`/runs/${run.id}`).expect(404);
    await other.agent.post(`/runs/${run.id}/withdraw`).type('form').send({ _csrf: other.csrf, confirm: 'yes' }).expect(404);
  });

  it('withdraws with htmx: the run page is sent to the run by HX-Redirect, the list gets itself back', async () => {
    const fromPage = await newRun();
    const res = await owner.agent
      .post(`/runs/${fromPage.id}/withdraw`)
      .set('HX-Request', 'true')
      .set('X-CSRF-Token', owner.csrf)
      .type('form')
      .send({ confirm: 'yes' })
      .expect(200);
    expect(res.headers['hx-redirect']).to.equal(`/runs/${fromPage.id}?done=withdrawn`);
    expect((await ctx.db('speed_test_runs').where({ id: fromPage.id }).first('status')).status).to.equal('WITHDRAWN');

    const fromList = await newRun();
    const list = await owner.agent
      .post(`/runs/${fromList.id}/withdraw`)
      .set('HX-Request', 'true')
      .set('X-CSRF-Token', owner.csrf)
      .type('form')
      .send({ confirm: 'yes', from: 'list' })
      .expect(200);
    expect(list.text.trim()).to.match(/^<div id="own-runs">/);
    expect(list.text).to.include('Run withdrawn');
    expect(list.text).to.match(new RegExp(`<tr id="run-${fromList.id}" data-status="WITHDRAWN">`));
  });

  it("lists the owner's runs in every status with the admin's reason at /settings/runs, linked from the header and the profile", async () => {
    const someone = await account(ctx, 'lister');
    const rejected = await submitRun(ctx, someone, { tokSOut: 11 });
    const approved = await submitRun(ctx, someone, { tokSOut: 22 });
    await ctx
      .db('speed_test_runs')
      .where({ id: rejected.id })
      .update({ status: 'REJECTED', rejected_reason: 'The card cannot read its weights that fast', rejected_at: ctx.clock.now() });

    const page = (await someone.agent.get('/settings/runs').expect(200)).text;
    expect(page).to.include('<h1>Your runs</h1>');
    expect(page).to.include('href="/settings/runs" aria-current="page"');
    expect(page).to.match(new RegExp(`<tr id="run-${approved.id}" data-status="APPROVED">`));
    expect(page).to.match(new RegExp(`<tr id="run-${rejected.id}" data-status="REJECTED">`));
    expect(page).to.include('The card cannot read its weights that fast');
    expect(page.indexOf(`run-${approved.id}`)).to.be.below(page.indexOf(`run-${rejected.id}`));
    expect(page).to.include(`href="/runs/${approved.id}/correct"`);
    expect(page).to.not.include(`href="/runs/${rejected.id}/correct"`);
    expect(page).to.not.include(`run-${(await newRun()).id}`);

    const anonymous = await request(ctx.app).get('/settings/runs').expect(303);
    expect(anonymous.headers.location).to.equal('/signin?next=%2Fsettings%2Fruns');
    expect((await someone.agent.get(`/u/${someone.username}`).expect(200)).text).to.include('id="own-runs-link"');
    expect((await other.agent.get(`/u/${someone.username}`).expect(200)).text).to.not.include('id="own-runs-link"');
  });
});
