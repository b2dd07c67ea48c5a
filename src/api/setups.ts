import { SETUPS_PER_ACCOUNT } from '../constants.ts';
import { messages } from '../messages.ts';
import { parameterDescriptions } from '../openapi/descriptions.ts';
import { idParam } from '../schemas/path-params.schema.ts';
import { setupListResponseSchema, setupResponseSchema } from '../schemas/responses.schema.ts';
import { setupListQuerySchema, setupSchemas } from '../schemas/setup.schema.ts';
import {
  badRequest,
  errorBody,
  example,
  invalidQuery,
  malformedJson,
  notFound,
  operation,
  type ApiResource,
  type ResponseSpec,
} from './operation.ts';

/** Saved setups: the caller's own named hardware/engine configurations (session only; another user's id is a 404). */
export const setupsApi: ApiResource = {
  tag: { name: 'Saved setups', description: 'Named hardware/engine configurations that pre-fill the submit form (browser session only).' },

  responses: (profile) => ({ Setup: setupResponseSchema(profile), SetupList: setupListResponseSchema(profile) }),

  operations(profile) {
    const schemas = setupSchemas(profile);
    const setupId = idParam(messages.setupNotFound, 'Setup id');
    const invalid = badRequest(
      'The body fails validation (bounds, unknown fields, fields of another hardware class).',
      { gpuName: ['Does not apply to hwClass CPU_ONLY; clear it (null) or change hwClass'] },
      { malformed: malformedJson },
    );
    const nameTaken: ResponseSpec = {
      description: 'You already have a setup with this name.',
      body: 'Error',
      examples: { taken: example('Name taken', errorBody(messages.setupNameTaken)) },
    };
    const nameTakenOrFull: ResponseSpec = {
      description: `You already have a setup with this name, or the maximum of ${SETUPS_PER_ACCOUNT} setups.`,
      body: 'Error',
      examples: { ...nameTaken.examples, limit: example('Setup limit', errorBody(messages.setupLimit(SETUPS_PER_ACCOUNT))) },
    };
    const unknown = notFound('Setup', messages.setupNotFound);
    return [
      operation({
        operationId: 'listSetups',
        route: 'GET /api/setups',
        summary: 'Your saved setups',
        auth: 'session',
        query: { schema: setupListQuerySchema, descriptions: parameterDescriptions.setups },
        responses: {
          200: { description: 'A page of your setups: default first, then most recently updated.', body: 'SetupList' },
          400: invalidQuery({ limit: [`Must be at most ${SETUPS_PER_ACCOUNT}`] }),
        },
        async handle({ res, app, query, userId }) {
          res.json(await app.services.setups.list(userId(), query));
        },
      }),
      operation({
        operationId: 'createSetup',
        route: 'POST /api/setups',
        summary: 'Save a setup',
        description: `\`isDefault: true\` clears the default flag of your other setups. At most ${SETUPS_PER_ACCOUNT} setups per account.`,
        auth: 'session',
        body: {
          component: 'SetupCreate',
          schema: schemas.create,
          examples: {
            setup: example('A GPU box', {
              name: '4090 box',
              isDefault: true,
              hwClass: 'DISCRETE_GPU',
              gpuName: 'NVIDIA GeForce RTX 4090',
              vramGb: 24,
              engineName: 'llama.cpp',
              quantization: 'Q4_K_M',
              gpuLayers: 99,
              flashAttn: true,
              contextLength: 8192,
            }),
          },
        },
        responses: { 201: { description: 'The stored setup.', body: 'Setup', headers: ['Location'] }, 400: invalid, 409: nameTakenOrFull },
        async handle({ res, app, body, userId }) {
          const setup = await app.services.setups.create(userId(), body);
          res.status(201).location(`/api/setups/${setup.id}`).json(setup);
        },
      }),
      operation({
        operationId: 'getSetup',
        route: 'GET /api/setups/:id',
        summary: 'One of your setups',
        auth: 'session',
        pathParams: setupId,
        responses: { 200: { description: 'The setup.', body: 'Setup' }, 404: unknown },
        async handle({ res, app, params, userId }) {
          res.json(await app.services.setups.get(userId(), params.id));
        },
      }),
      operation({
        operationId: 'updateSetup',
        route: 'PATCH /api/setups/:id',
        summary: 'Change some fields of a setup',
        description: 'Only the fields given change; `null` clears a field.',
        auth: 'session',
        pathParams: setupId,
        body: {
          component: 'SetupPatch',
          schema: schemas.patch,
          examples: { rename: example('Rename and clear a field', { name: 'old 4090 box', gpuLayers: null }) },
        },
        responses: { 200: { description: 'The setup as stored now.', body: 'Setup' }, 400: invalid, 404: unknown, 409: nameTaken },
        async handle({ res, app, params, body, userId }) {
          res.json(await app.services.setups.update(userId(), params.id, body));
        },
      }),
      operation({
        operationId: 'deleteSetup',
        route: 'DELETE /api/setups/:id',
        summary: 'Delete a setup',
        auth: 'session',
        pathParams: setupId,
        responses: { 204: { description: 'Deleted (no body).' }, 404: unknown },
        async handle({ res, app, params, userId }) {
          await app.services.setups.remove(userId(), params.id);
          res.status(204).end();
        },
      }),
    ];
  },
};
