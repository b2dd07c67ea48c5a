import { meResponseSchema } from '../schemas/responses.schema.ts';
import { operation, type ApiResource } from './operation.ts';

/** Who the credentials belong to: lets an agent check its key before submitting. */
export const accountApi: ApiResource = {
  tag: { name: 'Account', description: 'Who the credentials belong to.' },

  responses: () => ({ Me: meResponseSchema }),

  operations: () => [
    operation({
      operationId: 'getMe',
      route: 'GET /api/me',
      summary: 'Whose credentials these are',
      description: 'Lets an agent check its key before submitting.',
      auth: 'key|session',
      responses: { 200: { description: 'The caller.', body: 'Me' } },
      handle({ req, res }) {
        const { user, via } = req.actor!;
        res.json({
          id: user.id,
          username: user.username,
          displayName: user.displayName,
          isVerified: user.isVerified,
          isAdmin: user.isAdmin,
          authenticatedWith: via === 'key' ? 'api_key' : 'session',
        });
      },
    }),
  ],
};
