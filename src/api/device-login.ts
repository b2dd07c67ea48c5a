import { z } from 'zod';
import { answerOrigin, absoluteUrl } from '../serialisers/origin.ts';
import { DEVICE_LOGIN, DeviceKeyLimit } from '../services/device-logins.service.ts';
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
const deviceCodeValue = z.string({ error: 'Must be a string' }).min(1, 'Required').max(128, 'Must be at most 128 characters');
/**
 * RFC 8628's form { grant_type, device_code, client_id? }, or the LocalMaxxing Go CLI's
 * { deviceCode } (DECISIONS.md "Real clients"): grant_type may be left out only in that form,
 * and a grant_type that is given must be the device grant.
 */
const deviceTokenRequestSchema = z
  .strictObject({
    grant_type: z.literal(DEVICE_GRANT, { error: `Must be ${DEVICE_GRANT}` }).optional(),
    device_code: deviceCodeValue.optional(),
    deviceCode: deviceCodeValue.optional().meta({ description: 'The camelCase form of device_code (grant_type may then be left out)' }),
    client_id: clientId.optional(),
  })
  .superRefine((body, ctx) => {
    if (body.device_code !== undefined && body.deviceCode !== undefined)
      ctx.addIssue({ code: 'custom', path: ['deviceCode'], message: 'Give device_code or deviceCode, not both' });
    else if (body.device_code === undefined && body.deviceCode === undefined)
      ctx.addIssue({ code: 'custom', path: ['device_code'], message: 'Required' });
    else if (body.device_code !== undefined && body.grant_type === undefined)
      ctx.addIssue({ code: 'custom', path: ['grant_type'], message: 'Required' });
  })
  .transform((body) => ({ deviceCode: (body.device_code ?? body.deviceCode)! }));

const deviceCodeResponseSchema = z.object({
  device_code: z.string().meta({ description: "The client's secret for polling; never shown to the person" }),
  user_code: z.string().meta({ description: 'What the person types at verification_uri: 8 letters, XXXX-XXXX' }),
  verification_uri: z.string(),
  verification_uri_complete: z.string().meta({ description: 'verification_uri with the code filled in' }),
  expires_in: z.int().meta({ description: 'Seconds the codes work' }),
  interval: z.int().meta({ description: 'Seconds to wait between polls' }),
  // The same values under the LocalMaxxing Go CLI's camelCase names.
  deviceCode: z.string().meta({ description: 'Same as device_code' }),
  userCode: z.string().meta({ description: 'Same as user_code' }),
  verificationUri: z.string().meta({ description: 'Same as verification_uri' }),
  verificationUriComplete: z.string().meta({ description: 'Same as verification_uri_complete' }),
  expiresIn: z.int().meta({ description: 'Same as expires_in' }),
});
const deviceTokenResponseSchema = z.object({
  access_token: z.string().meta({ description: 'A new API key (bhk_…) of the person who approved, shown this once' }),
  token_type: z.literal('Bearer'),
  key: z.string().meta({ description: 'Same as access_token (the name the LocalMaxxing Go CLI reads)' }),
});

const deviceKeyLimitResponseSchema = z
  .object({
    error: z.literal('key_limit_exceeded'),
    error_description: z.string().meta({ description: 'What to do, in English' }),
  })
  .meta({ description: 'The approving account has its live API keys (a code in `error`, as the other answers of this endpoint).' });

const DEFAULT_CLIENT = 'command-line client';

export const deviceLoginApi: ApiResource = {
  tag: { name: 'Device login', description: 'Sign a command-line client in through the browser (RFC 8628): it gets an API key.' },

  responses: () => ({
    DeviceCode: deviceCodeResponseSchema,
    DeviceToken: deviceTokenResponseSchema,
    DeviceKeyLimit: deviceKeyLimitResponseSchema,
  }),

  operations: () => [
    operation({
      operationId: 'startDeviceLogin',
      route: 'POST /api/auth/device/code',
      summary: 'Start a device login',
      description: `Show the person \`user_code\` and \`verification_uri\`; they sign in there and approve. The answer repeats each value under a camelCase name (\`deviceCode\`, \`userCode\`, \`verificationUri\`, \`verificationUriComplete\`, \`expiresIn\`) for the LocalMaxxing Go CLI. Then poll /api/auth/device/token every \`interval\` seconds. The codes work for ${DEVICE_LOGIN.expiresInSeconds / 60} minutes and once; at most ${DEVICE_LOGIN.startsPerAddress} logins per address per ${DEVICE_LOGIN.startsWindowMs / 60_000} minutes.`,
      auth: 'public',
      body: {
        component: 'DeviceCodeRequest',
        schema: deviceCodeRequestSchema,
        examples: {
          cli: example('A named client', { client_id: 'llm-bench' }),
          empty: example('The LocalMaxxing Go CLI (lmx auth login) sends an empty object', {}),
        },
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
        const complete = `${verification}?user_code=${encodeURIComponent(started.userCode)}`;
        res.set('Cache-Control', 'no-store').json({
          device_code: started.deviceCode,
          user_code: started.userCode,
          verification_uri: verification,
          verification_uri_complete: complete,
          expires_in: started.expiresIn,
          interval: started.interval,
          deviceCode: started.deviceCode,
          userCode: started.userCode,
          verificationUri: verification,
          verificationUriComplete: complete,
          expiresIn: started.expiresIn,
        });
      },
    }),
    operation({
      operationId: 'pollDeviceLogin',
      route: 'POST /api/auth/device/token',
      summary: 'Poll a device login',
      description:
        "Send RFC 8628's `{ grant_type, device_code }` or the LocalMaxxing Go CLI's `{ deviceCode }` (grant_type may be left out only then). 400 with `error` `authorization_pending` (not yet approved), `slow_down` (polled before `interval`; the interval grows by 5 s), `access_denied`, `expired_token` or `invalid_grant` (unknown or already used); 409 `key_limit_exceeded` when the approving account has its 10 keys; once approved, 200 with a new API key (as `access_token` and as `key`), once.",
      auth: 'public',
      body: {
        component: 'DeviceTokenRequest',
        schema: deviceTokenRequestSchema,
        examples: {
          poll: example('A poll (RFC 8628)', { grant_type: DEVICE_GRANT, device_code: 'Zm9vYmFyYmF6', client_id: 'llm-bench' }),
          camelCase: example('A poll of the LocalMaxxing Go CLI (lmx auth login)', { deviceCode: 'Zm9vYmFyYmF6' }),
        },
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
          description:
            'The approving account has its 10 live API keys: revoke one at /settings/keys, then poll again (the login stays approved).',
          body: 'DeviceKeyLimit',
          examples: { full: example('Key limit', new DeviceKeyLimit().toJSON()) },
        },
      },
      async handle({ res, app, body }) {
        const key = await app.services.deviceLogins.poll(body.deviceCode);
        res.set('Cache-Control', 'no-store').json({ access_token: key.key, token_type: 'Bearer', key: key.key });
      },
    }),
  ],
};
