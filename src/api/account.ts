import { meResponseSchema } from '../schemas/responses.schema.ts';
import { operation, type ApiCall, type ApiResource } from './operation.ts';

/** The caller as `/api/me` and its `/api/user` twin answer it. */
function answerCaller({ req, res }: ApiCall): void {
  const { user, via } = req.actor!;
  res.json({
    id: user.id,
    username: user.username,
    displayName: user.displayName,
    isVerified: user.isVerified,
    isAdmin: user.isAdmin,
    authenticatedWith: via === 'key' ? 'api_key' : 'session',
  });
}

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
      handle: answerCaller,
    }),
    operation({
      operationId: 'getUser',
      route: 'GET /api/user',
      summary: 'Whose credentials these are (the name command-line clients ask)',
      description: 'The same answer as `GET /api/me`, at the path the LocalMaxxing clients call (`auth whoami`).',
      auth: 'key|session',
      responses: { 200: { description: 'The caller.', body: 'Me' } },
      handle: answerCaller,
    }),
  ],
};
