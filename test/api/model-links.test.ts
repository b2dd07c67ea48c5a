/**
 * Model names resolved in memory (issue 37): while the read index is ready, a filter's `hfId`
 * resolves to its model, or its tree, from a copy of the catalogue's links (src/services/model-links.ts)
 * with no round trip. It must find exactly what Postgres finds: `lower(hf_id) = lower($1)` and
 * MODEL_TREE_SQL, on a catalogue with links by row id and by name, chains, shared bases,
 * bases the catalogue does not hold, a cycle and names differing only in case.
 */
import { expect } from 'chai';
import { createLogger } from '../../src/logger.ts';
import { ReadIndexKeeper } from '../../src/runs/read-index/read-index.ts';
import { ModelLinks } from '../../src/services/model-links.ts';
import { MODEL_TREE_SQL } from '../../src/services/model-tree.ts';
import { useTestApp } from '../helpers/app.ts';
import { waitFor } from '../helpers/read-index.ts';
// The benchmark's deterministic generator (mulberry32), so a failure names the model that differed.
import { prng } from '../bench/seed.ts';

describe('model names resolved from a copy of the catalogue', () => {
  const ctx = useTestApp({ READ_INDEX: 'off' });
  const names: string[] = [];

  before(async () => {
    const rng = prng(41);
    const ids: { id: string; hf: string }[] = [];
    for (let i = 0; i < 150; i += 1) {
      const hf = `${['Org', 'team-x', 'unsloth'][i % 3]}/Model-${i}${i % 7 === 0 ? '-GGUF' : ''}`;
      // Some link to an earlier model by row id, some by its name in another case, some to a base not catalogued.
      const roll = rng();
      const base = ids.length > 0 ? ids[Math.floor(rng() * ids.length)]! : null;
      const row: Record<string, unknown> = { hf_id: hf, display_name: hf, params: 7 };
      if (base && roll < 0.35) row.base_model_id = base.id;
      else if (base && roll < 0.6) row.base_hf_id = rng() < 0.5 ? base.hf.toUpperCase() : base.hf;
      else if (roll < 0.7) row.base_hf_id = `Uncatalogued/Base-${Math.floor(rng() * 5)}`;
      const [{ id }] = await ctx.db('models').insert(row).returning('id');
      ids.push({ id, hf });
      names.push(hf);
    }
    // A cycle: the first model's base is the last one, by name.
    await ctx
      .db('models')
      .where({ hf_id: ids[0]!.hf })
      .update({ base_hf_id: ids.at(-1)!.hf });
    names.push('Uncatalogued/Base-1', 'uncatalogued/base-3', 'nobody/none', 'ORG/MODEL-3', '');
  });

  it('finds every model and every tree exactly as Postgres does', async () => {
    const links = await ModelLinks.load(ctx.db);
    for (const name of names) {
      const row = await ctx.db('models').whereRaw('lower(hf_id) = lower(?)', [name]).first('id');
      expect(links.idOf(name), name).to.equal(row?.id ?? null);
      const tree = (await ctx.db.raw(MODEL_TREE_SQL, [name, name])).rows.map((r: { id: string }) => r.id).sort();
      expect(links.tree(name).sort(), name).to.deep.equal(tree);
    }
    // The catalogue has trees of several models, not only single ones (else the comparison proves little).
    expect(Math.max(...names.map((name) => links.tree(name).length))).to.be.above(5);
  });

  it('answers names written in ASCII only: Postgres lower-cases the rest', async () => {
    const links = await ModelLinks.load(ctx.db);
    expect(links.answers('Org/Model-1')).to.equal(true);
    expect(links.answers('ÄÖÜ-Labs/Model')).to.equal(false);
    expect(links.answers('org/İ')).to.equal(false);
  });

  it('loads the copy once however many requests ask at once, and again after a catalogue change', async () => {
    const keeper = new ReadIndexKeeper({
      db: ctx.db,
      databaseUrl: ctx.databaseUrl,
      logger: createLogger('silent'),
      config: { enabled: true, freshness: 'notify', documentCacheSize: 0 },
    });
    keeper.start();
    try {
      await waitFor(() => keeper.status().state === 'ready', 30_000);
      let loads = 0;
      const load = () => {
        loads += 1;
        return ModelLinks.load(ctx.db);
      };
      const copies = await Promise.all(Array.from({ length: 32 }, () => keeper.resolved('model-links', load)));
      expect(loads).to.equal(1);
      expect(new Set(copies).size).to.equal(1);
      // A loader may hand back a Knex query (a thenable that runs on every `then`): it still runs once.
      let queries = 0;
      const counted = () => (queries += 1);
      ctx.db.on('query', counted);
      try {
        const lists = await Promise.all(
          Array.from({ length: 8 }, () => keeper.resolved('hardware:any', () => ctx.db('models').pluck('id'))),
        );
        expect(lists[0]).to.have.length(150);
        expect(queries).to.equal(1);
      } finally {
        ctx.db.removeListener('query', counted);
      }
      await ctx.db('models').insert({ hf_id: 'Org/New-Finetune', display_name: 'New', params: 7, base_hf_id: 'Org/Model-1' });
      await keeper.caughtUp();
      const fresh = await keeper.resolved('model-links', load);
      expect(loads).to.equal(2);
      expect(fresh.idOf('org/new-finetune')).to.be.a('string');
    } finally {
      await keeper.close();
    }
  });
});
