import { messages } from '../messages.ts';
import { parameterDescriptions } from '../openapi/descriptions.ts';
import { modelSearchQuerySchema, modelsListQuerySchema } from '../schemas/models-query.schema.ts';
import { modelPathParams } from '../schemas/path-params.schema.ts';
import {
  modelDetailResponseSchema,
  modelListResponseSchema,
  modelSearchResponseSchema,
  modelsResponseSchema,
  modelTreeNodeSchema,
  modelTreeResponseSchema,
} from '../schemas/responses.schema.ts';
import { badRequest, invalidQuery, notFound, operation, type ApiOperation, type ApiResource } from './operation.ts';

/** The model catalogue: lists and finetune trees, search, one model. */
export const modelsApi: ApiResource = {
  tag: { name: 'Models', description: 'The model catalogue, built from the Hugging Face hub as runs arrive.' },

  responses: () => ({
    ModelList: modelListResponseSchema,
    ModelTreeNode: modelTreeNodeSchema,
    ModelTree: modelTreeResponseSchema,
    Models: modelsResponseSchema,
    ModelSearchResults: modelSearchResponseSchema,
    ModelDetail: modelDetailResponseSchema,
  }),

  operations(profile) {
    const ops: ApiOperation[] = [
      operation({
        operationId: 'listModels',
        route: 'GET /api/models',
        summary: 'The model catalogue',
        description: 'Most-benchmarked first. `tree=true` nests finetunes, quants, adapters and merges under their base model.',
        auth: 'public',
        query: { schema: modelsListQuerySchema(profile), descriptions: parameterDescriptions.models },
        responses: {
          200: { description: 'A page of models (flat, or trees with `tree=true`).', body: 'Models' },
          400: invalidQuery({ limit: [`Must be at most ${profile.models.listLimit.max}`] }),
        },
        async handle({ res, app, query: { tree, ...query } }) {
          res.json(tree ? await app.services.models.tree(query) : await app.services.models.list(query));
        },
      }),
    ];
    if (profile.models.search) {
      ops.push(
        operation({
          operationId: 'searchModels',
          followsReadIndex: true,
          route: 'GET /api/models/search',
          summary: 'Search the catalogue',
          description:
            'Every word of `q` in the id, name or family (any order, `-` and `_` ignored). Exact id first, then prefix matches, then the rest; each group by run count.',
          auth: 'public',
          query: { schema: modelSearchQuerySchema(profile), descriptions: parameterDescriptions.modelSearch },
          responses: {
            200: { description: 'Matching models.', body: 'ModelSearchResults' },
            400: badRequest('`q` is missing, or a parameter is unknown or out of bounds.', { q: ['Required'] }),
          },
          async handle({ res, app, query }) {
            res.json(await app.services.models.search(query));
          },
        }),
      );
    }
    ops.push(
      operation({
        operationId: 'getModel',
        route: 'GET /api/models/:org/:model',
        summary: 'One model with its base, children and run summary',
        auth: 'public',
        pathParams: modelPathParams,
        responses: {
          200: { description: 'The model.', body: 'ModelDetail' },
          404: notFound('Model', messages.modelNotCatalogued('someorg/No-Such-Model')),
        },
        async handle({ res, app, params }) {
          res.json(await app.services.models.detail(`${params.org}/${params.model}`));
        },
      }),
    );
    return ops;
  },
};
