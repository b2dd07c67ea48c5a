import type { Request, Response } from 'express';
import type { Db } from '../../db/knex.ts';
import { parseOrThrow } from '../../lib/validation.ts';
import type { RevisionProfile } from '../../revisions.ts';
import { modelSearchQuerySchema, modelsListQuerySchema } from '../../schemas/models-query.schema.ts';
import { getModelDetail, listModels, listModelTree, searchModels } from '../../services/catalogue.service.ts';

export function modelsController(db: Db, profile: RevisionProfile) {
  return {
    async list(req: Request, res: Response) {
      const { tree, ...query } = parseOrThrow(modelsListQuerySchema(profile), req.query);
      res.json(tree ? await listModelTree(db, query) : await listModels(db, query));
    },
    async search(req: Request, res: Response) {
      res.json(await searchModels(db, parseOrThrow(modelSearchQuerySchema(profile), req.query)));
    },
    async show(req: Request, res: Response) {
      res.json(await getModelDetail(db, `${req.params.org}/${req.params.model}`));
    },
  };
}
