import type { Db } from '../db/knex.ts';
import { NotFound } from '../lib/errors.ts';
import { catalogueEntryFromHub, paramsFromName, type CatalogueEntry } from '../lib/model-metadata.ts';
import type { HubClient } from './hub.service.ts';
import { recomputePlausibility } from './plausibility.service.ts';

export interface ModelRow {
  id: string;
  hf_id: string;
  display_name: string;
  family: string | null;
  params: number | null;
  params_approximate: boolean;
  active_params: number | null;
  is_moe: boolean;
  base_model_id: string | null;
  base_hf_id: string | null;
  base_relation: string | null;
  hub_sha: string | null;
  gated: boolean;
}

/** The model as embedded in runs and lists: the catalogue facts plus its row id and base. */
export type ModelSummary = Pick<
  CatalogueEntry,
  'hfId' | 'displayName' | 'family' | 'params' | 'paramsApproximate' | 'activeParams' | 'isMoE'
> & { id: string; baseHfId: string | null; baseRelation: string | null };

export function toModelSummary(row: ModelRow): ModelSummary {
  return {
    id: row.id,
    hfId: row.hf_id,
    displayName: row.display_name,
    family: row.family,
    params: row.params,
    paramsApproximate: row.params_approximate,
    activeParams: row.active_params,
    isMoE: row.is_moe,
    baseHfId: row.base_hf_id,
    baseRelation: row.base_relation,
  };
}

export function findModelByHfId(db: Db, hfId: string): Promise<ModelRow | undefined> {
  return db<ModelRow>('models').whereRaw('lower(hf_id) = lower(?)', [hfId]).first();
}

/** A catalogued model, or what the hub says about a new one (written later, with the run). */
export type ResolvedModel = { catalogued: ModelRow } | { fromHub: CatalogueEntry };

/**
 * Catalogued models are never looked up again; others are checked on the hub (404 when it
 * has no such repo, 503 when it cannot answer). Offline, only the catalogue counts.
 */
export async function resolveModel(
  deps: { db: Db; hub: HubClient; hubMode: 'online' | 'offline' },
  hfId: string,
): Promise<ResolvedModel> {
  const catalogued = await findModelByHfId(deps.db, hfId);
  if (catalogued) return { catalogued };
  if (deps.hubMode === 'offline') {
    throw new NotFound(`Model '${hfId}' is not in the catalogue, and the model hub is offline (HUB_MODE=offline): only catalogued models are accepted`);
  }
  const entry = catalogueEntryFromHub(await deps.hub.getModel(hfId), hfId);
  // The hub may spell the id differently (case); that spelling may already be catalogued.
  const bySpelling = entry.hfId.toLowerCase() === hfId.toLowerCase() ? undefined : await findModelByHfId(deps.db, entry.hfId);
  return bySpelling ? { catalogued: bySpelling } : { fromHub: entry };
}

/**
 * Writes a hub entry into the catalogue (inside the caller's transaction) and links the
 * finetune tree both ways: to its base when that is catalogued, and its already-catalogued
 * children to it. A model with no parameter count of its own takes its base's.
 */
export async function catalogueModel(trx: Db, entry: CatalogueEntry): Promise<ModelRow> {
  const base = entry.base ? await findModelByHfId(trx, entry.base.hfId) : undefined;
  // Own count, else the base's, else a size in the name (approximate).
  const fromName = paramsFromName(entry.displayName).params;
  const params = entry.params ?? base?.params ?? fromName;
  const paramsApproximate =
    entry.params !== null ? entry.paramsApproximate : base?.params != null ? base.params_approximate : fromName !== null;
  await trx('models')
    .insert({
      hf_id: entry.hfId,
      display_name: entry.displayName,
      family: entry.family,
      params,
      params_approximate: paramsApproximate,
      active_params: entry.activeParams ?? (entry.params === null ? (base?.active_params ?? null) : null),
      is_moe: entry.isMoE || Boolean(base?.is_moe && entry.base?.relation === 'quantized'),
      base_model_id: base?.id ?? null,
      base_hf_id: entry.base?.hfId ?? null,
      base_relation: entry.base?.relation ?? null,
      hub_sha: entry.hubSha,
      gated: entry.gated,
    })
    .onConflict()
    .ignore();
  const row = (await findModelByHfId(trx, entry.hfId))!;
  const adopted = await trx('models')
    .whereRaw('lower(base_hf_id) = lower(?)', [row.hf_id])
    .whereNull('base_model_id')
    .update({
      base_model_id: row.id,
      // The base's count beats none, and beats a guess from the child's name.
      params: trx.raw('case when params is null or params_approximate then coalesce(?, params) else params end', [row.params]),
      params_approximate: trx.raw('case when params is null or params_approximate then ? else params_approximate end', [row.params_approximate]),
    })
    .returning(['id', 'params']);
  // Runs carry their model's size for the paramSize filter, and it feeds their verdict.
  for (const child of adopted) await trx('speed_test_runs').where({ model_id: child.id }).update({ model_params: child.params });
  if (adopted.length > 0) await recomputePlausibility(trx, adopted.map((child) => child.id));
  return row;
}
