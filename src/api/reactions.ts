import { messages } from '../messages.ts';
import { idParam } from '../schemas/path-params.schema.ts';
import { reactionSchema } from '../schemas/reaction.schema.ts';
import { reactionStateResponseSchema } from '../schemas/responses.schema.ts';
import { badRequest, example, notFound, operation, type ApiResource } from './operation.ts';

/** Reactions to speed-test runs: one per user per run; `null` takes it back. */
export const reactionsApi: ApiResource = {
  tag: { name: 'Reactions', description: 'One reaction per user per run.' },

  responses: () => ({ ReactionState: reactionStateResponseSchema }),

  operations: () => [
    operation({
      operationId: 'reactToRun',
      route: 'POST /api/runs/:id/react',
      summary: 'React to a run, or take the reaction back',
      description:
        'One reaction per user per run (a speed-test run or an approved quality run): a new emoji replaces the old one, `null` removes it.',
      auth: 'key|session',
      pathParams: idParam(messages.speedTestNotFound, 'Run id'),
      body: {
        component: 'Reaction',
        schema: reactionSchema,
        examples: { react: example('React', { emoji: 'fire' }), remove: example('Take it back', { emoji: null }) },
      },
      responses: {
        200: {
          description: "The run's reaction counts and the caller's reaction.",
          body: 'ReactionState',
          examples: { state: example('After reacting', { reactionCounts: { fire: 3, rocket: 1 }, myEmoji: 'fire' }) },
        },
        400: badRequest('The body is not `{ emoji }` with an accepted emoji or null.', {
          emoji: ['Must be one of fire, rocket, 100, brain, chad, or null to remove your reaction'],
        }),
        404: notFound('Run', messages.speedTestNotFound),
      },
      async handle({ res, app, params, body, userId }) {
        res.json(await app.services.reactions.reactToAnyRun(params.id, userId(), body.emoji));
      },
    }),
  ],
};
