/**
 * The models in the tree under a base: itself, its finetunes, their quants, ... Children
 * are linked by row id, or by the base id the hub named when the base is not catalogued.
 */
export const MODEL_TREE_SQL = `with recursive tree(id, hf_id) as (
    select id, hf_id from models where lower(hf_id) = lower(?) or lower(base_hf_id) = lower(?)
    union
    select child.id, child.hf_id from models child
      join tree on child.base_model_id = tree.id or lower(child.base_hf_id) = lower(tree.hf_id)
  ) select id from tree`;

/** Which runs of a model a read takes: its tree (the list API's `hfId` rule) or the model alone (a model page's narrow scope). */
export const modelScopes = ['model', 'tree'] as const;
export type ModelScope = (typeof modelScopes)[number];

/** A `where` on runs `r` of the scope: the model's own id, or the ids of its tree. */
export function scopeCondition(model: { id: string; hfId: string }, scope: ModelScope): [sql: string, bindings: string[]] {
  return scope === 'model' ? ['r.model_id = ?', [model.id]] : [`r.model_id in (${MODEL_TREE_SQL})`, [model.hfId, model.hfId]];
}
