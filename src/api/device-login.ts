import { z } from 'zod';
import { messages } from '../messages.ts';
import { answerOrigin, absoluteUrl } from '../serialisers/origin.ts';
import { DEVICE_LOGIN } from '../services/device-logins.service.ts';
import { badRequest, errorBody, example, malformedJson, operation, type ApiResource } from './operation.ts';

/**
 * Device login (RFC 8628) for command-line clients (DECISIONS.md "Real clients"): the client
 * asks for codes, the person approves at /device (signed in, CSRF-checked), and the client's
 * poll gets a new API key once. Bodies may be JSON or form-encoded, as RFC 8628 sends them.
 */

const clientId = z
  .string({ error: 'Must be a string' })
  .trim()
  .min(1, 'Must not be empty')
  .max(64, 'Must be at most 64 characters')
  .regex(/^[\x20-\x7e]+$/, 'Must be printable ASCII');

const deviceCodeRequestSchema = z.strictObject({
  client_id: clientId.optional().meta({ description: 'Names the program; the new key is named after it' }),
  scope: z.string({ error: 'Must be a string' }).max(256, 'Must be at most 256 characters').optional(),
});

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const deviceTokenRequestSchema = z.strictObject({
  grant_type: z.literal(DEVICE_GRANT, { error: `Must be ${DEVICE_GRANT}` }),
  device_code: z.string({ error: 'Required' }).min(1, 'Required').max(128, 'Must be at most 128 characters'),
  client_id: clientId.optional(),
});

const deviceCodeResponseSchema = z.object({
  device_code: z.string().meta({ description: "The client's secret for polling; never shown to the person" }),
  user_code: z.string().meta({ description: 'What the person types at verification_uri: 8 letters, XXXX-XXXX' }),
  verification_uri: z.string(),
  verification_uri_complete: z.string().meta({ description: 'verification_uri with the code filled in' }),
  expires_in: z.int().meta({ description: 'Seconds the codes work' }),
  interval: z.int().meta({ description: 'Seconds to wait between polls' }),
});
const deviceTokenResponseSchema = z.object({
  access_token: z.string().meta({ description: 'A new API key (bhk_…) of the person who approved, shown this once' }),
  token_type: z.literal('Bearer'),
});

const DEFAULT_CLIENT = 'command-line client';

export const deviceLoginApi: ApiResource = {
  tag: { name: 'Device login', description: 'Sign a command-line client in through the browser (RFC 8628): it gets an API key.' },

  responses: () => ({ DeviceCode: deviceCodeResponseSchema, DeviceToken: deviceTokenResponseSchema }),

  operations: () => [
    operation({
      operationId: 'startDeviceLogin',
      route: 'POST /api/auth/device/code',
      summary: 'Start a device login',
      description: `Show the person \`user_code\` and \`verification_uri\`; they sign in there and approve. Then poll /api/auth/device/token every \`interval\` seconds. The codes work for ${DEVICE_LOGIN.expiresInSeconds / 60} minutes and once; at most ${DEVICE_LOGIN.startsPerAddress} logins per address per ${DEVICE_LOGIN.startsWindowMs / 60_000} minutes.`,
      auth: 'public',
      body: {
        component: 'DeviceCodeRequest',
        schema: deviceCodeRequestSchema,
        examples: { cli: example('The LocalMaxxing CLI', { client_id: 'lmx' }) },
      },
      responses: {
        200: { description: 'The codes.', body: 'DeviceCode' },
        400: badRequest('The body fails validation.', { client_id: ['Must be at most 64 characters'] }, { malformed: malformedJson }),
        429: {
          description: 'Too many device logins from this address; wait `Retry-After` seconds.',
          body: 'TooManyRequests',
          headers: ['Retry-After'],
          examples: {
            limited: example('Too many', { error: 'Too many device logins from your address; try again later', retryAfterMs: 600_000 }),
          },
        },
      },
      async handle({ req, res, app, body }) {
        const started = await app.services.deviceLogins.start(
          { clientId: body.client_id ?? DEFAULT_CLIENT, scope: body.scope },
          req.ip ?? '',
        );
        const verification = absoluteUrl(answerOrigin(req, res, app.config), '/device');
        res.set('Cache-Control', 'no-store').json({
          device_code: started.deviceCode,
          user_code: started.userCode,
          verification_uri: verification,
          verification_uri_complete: `${verification}?user_code=${encodeURIComponent(started.userCode)}`,
          expires_in: started.expiresIn,
          interval: started.interval,
        });
      },
    }),
    operation({
      operationId: 'pollDeviceLogin',
      route: 'POST /api/auth/device/token',
      summary: 'Poll a device login',
      description:
        '400 with `error` `authorization_pending` (not yet approved), `slow_down` (polled before `interval`; the interval grows by 5 s), `access_denied`, `expired_token` or `invalid_grant` (unknown or already used); once approved, 200 with a new API key, once.',
      auth: 'public',
      body: {
        component: 'DeviceTokenRequest',
        schema: deviceTokenRequestSchema,
        examples: { poll: example('A poll', { grant_type: DEVICE_GRANT, device_code: 'Zm9vYmFyYmF6', client_id: 'lmx' }) },
      },
      responses: {
        200: { description: 'Approved: the new API key.', body: 'DeviceToken' },
        400: {
          ...badRequest('Not approved (yet), or the body fails validation.', { grant_type: [`Must be ${DEVICE_GRANT}`] }),
          examples: {
            pending: example('Waiting for the person', errorBody('authorization_pending')),
            slowDown: example('Polled too soon', errorBody('slow_down')),
            denied: example('Denied', errorBody('access_denied')),
            expired: example('Expired', errorBody('expired_token')),
          },
        },
        409: {
          description: 'The approving account has its 10 live API keys: revoke one at /settings/keys, then poll again.',
          body: 'Error',
          examples: { full: example('Key limit', errorBody(messages.apiKeyLimit(10))) },
        },
      },
      async handle({ res, app, body }) {
        const key = await app.services.deviceLogins.poll(body.device_code);
        res.set('Cache-Control', 'no-store').json({ access_token: key.key, token_type: 'Bearer' });
      },
    }),
  ],
};
