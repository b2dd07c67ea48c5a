/** /admin/hardware: names no catalogue device matched, and an admin's mapping of them (issue 33 point 4). */
import { expect } from 'chai';
import request from 'supertest';
import { setHardwareMappings } from '../../src/lib/hardware-mappings.ts';
import { useTestApp } from '../helpers/app.ts';
import { account, submitRun, type Account } from '../helpers/moderation.ts';

const UNKNOWN_GPU = 'Frobnicator 9000 Pro';
const OTHER_GPU = 'Zorblax X1 Turbo';
const UNKNOWN_CHIP = { hwClass: 'UNIFIED', chipVendor: 'Acme', chipFamily: 'Z9', chipVariant: 'Max', unifiedMemoryGb: 64 };

describe('admin: hardware names page', () => {
  const ctx = useTestApp({}, { fakeHub: true });
  let admin: Account;
  let member: Account;
  let fast: Record<string, any>;
  let slow: Record<string, any>;

  before(async () => {
    admin = await account(ctx, 'hwboss', { admin: true });
    member = await account(ctx, 'hwmember');
    fast = await submitRun(ctx, member, { hardware: { hwClass: 'DISCRETE_GPU', gpuName: UNKNOWN_GPU, vramGb: 24 }, tokSOut: 50 });
    // Written with other spacing and case: the same name.
    slow = await submitRun(ctx, member, {
      hardware: { hwClass: 'DISCRETE_GPU', gpuName: ' frobnicator  9000 PRO', vramGb: 24 },
      tokSOut: 40,
    });
    await submitRun(ctx, member, { hardware: { hwClass: 'DISCRETE_GPU', gpuName: OTHER_GPU, vramGb: 16 } });
    await submitRun(ctx, member, { hardware: UNKNOWN_CHIP });
    await submitRun(ctx, member, { hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA GeForce RTX 3090', vramGb: 24 } });
  });

  after(() => setHardwareMappings([]));

  const page = (who: Account) => who.agent.get('/admin/hardware');
  const map = (who: Account, fields: Record<string, string>) =>
    who.agent
      .post('/admin/hardware/map')
      .type('form')
      .send({ _csrf: who.csrf, ...fields });
  const unmap = (who: Account, fields: Record<string, string>) =>
    who.agent
      .post('/admin/hardware/unmap')
      .type('form')
      .send({ _csrf: who.csrf, ...fields });
  const run = async (id: string) => (await request(ctx.app).get(`/api/speed-tests/${id}`).expect(200)).body;
  const board = async (query: Record<string, string>) =>
    (
      await request(ctx.app)
        .get('/api/leaderboard')
        .query({ limit: '100', ...query })
        .expect(200)
    ).body.rows.map((row: { id: string }) => row.id);
  const section = (html: string, id: string) => {
    const start = html.indexOf(`id="${id}"`);
    return start < 0 ? '' : html.slice(start, html.indexOf('</table>', start));
  };

  it('sends a signed-out visitor to sign in and refuses a non-admin (page and posts)', async () => {
    const res = await request(ctx.app).get('/admin/hardware').expect(303);
    expect(res.headers.location).to.equal('/signin?next=%2Fadmin%2Fhardware');
    expect((await page(member).expect(403)).text).to.include('Admins only');
    await map(member, { kind: 'gpu', name: UNKNOWN_GPU, device: 'NVIDIA GeForce RTX 4090' }).expect(403);
    expect(await ctx.db('hardware_name_mappings').count('* as n').first()).to.deep.equal({ n: 0 });
  });

  it('lists the unresolved names per kind with their run counts, most runs first, and links the page from the admin nav', async () => {
    const res = await page(admin).expect(200);
    expect(res.text).to.include('href="/admin/hardware" aria-current="page"');
    const unresolved = section(res.text, 'unresolved-names');
    const rows = [
      ...unresolved.matchAll(
        /<tr>\s*<td data-label="Kind">(\w+)<\/td>\s*<td data-label="Name as written"><code>([^<]+)<\/code><\/td>\s*<td data-label="Runs">(\d+)/g,
      ),
    ].map((m) => [m[1], m[2], Number(m[3])]);
    expect(rows[0]).to.deep.equal(['GPU', UNKNOWN_GPU, 2]);
    expect(rows.slice(1)).to.have.deep.members([
      ['GPU', OTHER_GPU, 1],
      ['Chip', 'Acme Z9 Max', 1],
    ]);
    // A catalogued card is no unresolved name; the picker offers canonical names of the row's kind.
    expect(unresolved).not.to.include('RTX 3090');
    expect(res.text).to.include('<datalist id="hw-names-gpu">');
    expect(res.text).to.include('<option value="NVIDIA GeForce RTX 4090">');
    expect(unresolved).to.include('list="hw-names-chip"');
    expect(res.text).to.include('No names mapped yet.');
  });

  it('refuses a device name the catalogue does not hold, or one of another kind, with a 400 naming it', async () => {
    const unknown = await map(admin, { kind: 'gpu', name: UNKNOWN_GPU, device: 'RTX 9999 Hyper' }).expect(400);
    expect(unknown.text).to.include('RTX 9999 Hyper');
    expect(unknown.text).to.include('is not a GPU in the hardware catalogue: pick one of the suggested GPU names');
    const chipForGpu = await map(admin, { kind: 'gpu', name: UNKNOWN_GPU, device: 'Apple M2 Max' }).set('HX-Request', 'true').expect(400);
    expect(chipForGpu.text).to.include('is not a GPU in the hardware catalogue');
    expect(chipForGpu.text).to.include('id="hardware-names"');
    await map(admin, { kind: 'disk', name: UNKNOWN_GPU, device: 'NVIDIA GeForce RTX 4090' }).expect(400);
    expect(await ctx.db('hardware_name_mappings').count('* as n').first()).to.deep.equal({ n: 0 });
    expect(await ctx.db('admin_audit_log').where('target_kind', 'hardware_name').count('* as n').first()).to.deep.equal({ n: 0 });
  });

  it('refuses to map a name a catalogue device already matches (409)', async () => {
    const res = await map(admin, { kind: 'gpu', name: 'NVIDIA GeForce RTX 3090', device: 'NVIDIA GeForce RTX 4090' }).expect(409);
    expect(res.text).to.include('already resolves to NVIDIA GeForce RTX 3090');
  });

  it('refuses a post without the CSRF token', async () => {
    await admin.agent
      .post('/admin/hardware/map')
      .type('form')
      .send({ kind: 'gpu', name: UNKNOWN_GPU, device: 'NVIDIA GeForce RTX 4090' })
      .expect(403);
    expect(await ctx.db('hardware_name_mappings').count('* as n').first()).to.deep.equal({ n: 0 });
  });

  it('maps a name: audited, its runs re-judged and on the device page, in the filter; the name moves to the mapped table', async () => {
    expect((await run(fast.id)).plausibility).to.equal('unknown');
    await request(ctx.app).get('/hardware/nvidia-rtx-4090').expect(404);
    expect(await board({ hardwareName: 'RTX 4090' })).to.deep.equal([]);

    const res = await map(admin, { kind: 'gpu', name: UNKNOWN_GPU, device: 'nvidia geforce rtx 4090' })
      .set('HX-Request', 'true')
      .expect(200);
    expect(res.text).to.include(
      'Mapped “Frobnicator 9000 Pro” to nvidia geforce rtx 4090: its runs follow the device now (2 verdicts changed).',
    );
    expect(section(res.text, 'unresolved-names')).not.to.include(UNKNOWN_GPU);
    const mapped = section(res.text, 'mapped-names');
    expect(mapped).to.include(`<code>${UNKNOWN_GPU}</code>`);
    expect(mapped).to.include('<a href="/hardware/nvidia-rtx-4090">NVIDIA GeForce RTX 4090</a>');
    expect(mapped).to.include(`@${admin.username}`);

    const [entry] = await ctx.db('admin_audit_log').where('target_kind', 'hardware_name');
    expect(entry).to.include({
      actor_id: admin.id,
      actor_username: admin.username,
      action: 'hardware_name.map',
      target_label: `GPU ${UNKNOWN_GPU}`,
      reason: 'before: unresolved; after: NVIDIA GeForce RTX 4090',
    });

    // Both spellings are re-judged against the RTX 4090's bandwidth; the runs keep their names.
    for (const id of [fast.id, slow.id]) {
      const body = await run(id);
      expect(body.plausibility, id).to.equal('plausible');
      expect(body.decodeBoundTokS, id).to.be.greaterThan(50);
    }
    expect((await run(fast.id)).hardware.gpuName).to.equal(UNKNOWN_GPU);
    const device = await request(ctx.app).get('/hardware/nvidia-rtx-4090').expect(200);
    expect(device.text).to.include(`/runs/${fast.id}`);
    expect(await board({ hardwareName: 'RTX 4090' })).to.have.members([fast.id, slow.id]);
    const index = await request(ctx.app).get('/hardware').expect(200);
    expect(index.text).not.to.include('frobnicator-9000-pro');
    // Compare names the device both runs resolve to, linked to its page, as one.
    const compare = await request(ctx.app).get(`/compare?runs=${fast.id},${slow.id}`).expect(200);
    expect(compare.text).to.match(
      /<tr>\s*<th scope="row">Device<\/th>\s*<td><a href="\/hardware\/nvidia-rtx-4090">NVIDIA GeForce RTX 4090<\/a><\/td>/,
    );
  });

  it('removes a mapping (audited): the name is unresolved again, and so are its runs', async () => {
    await unmap(admin, { kind: 'gpu', name: 'Nobody Writes This' }).expect(404);
    const res = await unmap(admin, { kind: 'gpu', name: UNKNOWN_GPU }).expect(303);
    expect(res.headers.location).to.equal('/admin/hardware');
    const entries = await ctx.db('admin_audit_log').where('target_kind', 'hardware_name').orderBy('created_at');
    expect(entries.map((e) => [e.action, e.reason])).to.deep.equal([
      ['hardware_name.map', 'before: unresolved; after: NVIDIA GeForce RTX 4090'],
      ['hardware_name.unmap', 'before: NVIDIA GeForce RTX 4090; after: unresolved'],
    ]);
    const audit = (await admin.agent.get('/admin/audit').expect(200)).text;
    expect(audit).to.include('<code>hardware_name.unmap</code> <span class="muted">unmapped hardware name</span>');
    expect(audit).to.include(`<a href="/admin/hardware">GPU ${UNKNOWN_GPU}</a>`);
    expect((await run(fast.id)).plausibility).to.equal('unknown');
    await request(ctx.app).get('/hardware/nvidia-rtx-4090').expect(404);
    expect(await board({ hardwareName: 'RTX 4090' })).to.deep.equal([]);
    const html = (await page(admin).expect(200)).text;
    expect(section(html, 'unresolved-names')).to.include(UNKNOWN_GPU);
    expect(html).to.include('No names mapped yet.');
  });

  it('maps a chip written as vendor/family/variant to a catalogue chip with a plain form post', async () => {
    const res = await map(admin, { kind: 'chip', name: 'Acme Z9 Max', device: 'Apple M2 Max' }).expect(303);
    expect(res.headers.location).to.equal('/admin/hardware');
    const html = (await page(admin).expect(200)).text;
    expect(section(html, 'mapped-names')).to.include('<a href="/hardware/apple-m2-max">Apple M2 Max</a>');
    expect(await board({ hardwareName: 'M2 Max' })).to.have.length(1);
  });

  it('loads mappings another instance wrote when it is notified (the read index channel)', async () => {
    // As another instance's write: the row committed and the notice sent, nothing done in this process.
    await ctx.db('hardware_name_mappings').insert({
      kind: 'gpu',
      name_key: OTHER_GPU.toLowerCase(),
      written_name: OTHER_GPU,
      device_name: 'NVIDIA GeForce RTX 4080',
      mapped_by_username: admin.username,
    });
    await request(ctx.app).get('/hardware/nvidia-rtx-4080').expect(404);
    await ctx.db.raw("select pg_notify('speed_test_runs_changed', 'hardware-names')");
    let status = 404;
    for (let i = 0; i < 40 && status !== 200; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      status = (await request(ctx.app).get('/hardware/nvidia-rtx-4080')).status;
    }
    expect(status).to.equal(200);
  });
});
