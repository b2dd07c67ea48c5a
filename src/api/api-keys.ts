import { API_KEYS_PER_ACCOUNT } from '../constants.ts';
import { messages } from '../messages.ts';
import { createApiKeySchema } from '../schemas/api-key.schema.ts';
import { idParam } from '../schemas/path-params.schema.ts';
import { apiKeyListResponseSchema, createdApiKeyResponseSchema } from '../schemas/responses.schema.ts';
import { badRequest, errorBody, example, malformedJson, notFound, operation, type ApiResource } from './operation.ts';

/** Bearer keys for agents, managed with a browser session (a key cannot mint or revoke keys). */
export const apiKeysApi: ApiResource = {
  tag: { name: 'API keys', description: 'Bearer keys for agents (managed with a browser session).' },

  responses: () => ({ ApiKeyList: apiKeyListResponseSchema, CreatedApiKey: createdApiKeyResponseSchema }),

  operations: () => [
    operation({
      operationId: 'listApiKeys',
      route: 'GET /api/keys',
      summary: 'Your live API keys (never the secrets)',
      auth: 'session',
      responses: { 200: { description: 'Newest first.', body: 'ApiKeyList' } },
      async handle({ res, app, userId }) {
        res.json(await app.services.apiKeys.list(userId()));
      },
    }),
    operation({
      operationId: 'createApiKey',
      route: 'POST /api/keys',
      summary: 'Create an API key',
      description: `At most ${API_KEYS_PER_ACCOUNT} live keys per account. The secret is in this answer only.`,
      auth: 'session',
      body: {
        component: 'CreateApiKey',
        schema: createApiKeySchema,
        examples: { key: example('A key for an agent', { name: 'my benchmark agent', expiresAt: '2030-01-01T00:00:00Z' }) },
      },
      responses: {
        201: { description: 'The new key with its secret.', body: 'CreatedApiKey' },
        400: badRequest('The body fails validation.', { name: ['Name is required'] }, { malformed: malformedJson }),
        409: {
          description: 'The account already has the maximum of live keys.',
          body: 'Error',
          examples: { limit: example('Key limit', errorBody(messages.apiKeyLimit(API_KEYS_PER_ACCOUNT))) },
        },
      },
      async handle({ res, app, body, userId }) {
        const created = await app.services.apiKeys.create(userId(), body);
        res.status(201).set('Cache-Control', 'no-store').json(created);
      },
    }),
    operation({
      operationId: 'revokeApiKey',
      route: 'DELETE /api/keys/:id',
      summary: 'Revoke an API key',
      auth: 'session',
      pathParams: idParam(messages.apiKeyNotFound, 'API key id'),
      responses: {
        200: { description: 'Revoked: the key is a 401 from now on.', body: 'Ok', examples: { ok: example('Revoked', { ok: true }) } },
        404: notFound('API key', messages.apiKeyNotFound),
      },
      async handle({ res, app, params, userId }) {
        await app.services.apiKeys.revoke(userId(), params.id);
        res.json({ ok: true });
      },
    }),
  ],
};
