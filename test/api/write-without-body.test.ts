import { expect } from 'chai';
import request from 'supertest';
import { apiOperations } from '../../src/api/index.ts';
import type { ApiOperation } from '../../src/api/operation.ts';
import { getRevisionProfile } from '../../src/revisions.ts';
import { createKey, signedUpAgent, useTestApp, type Agent } from '../helpers/app.ts';

/**
 * A write sent with no body at all (no Content-Type, nothing) is answered like an empty JSON
 * object: a 400 with the validation shape naming the required fields, never a 500. Derived from
 * the declarations, so a new write operation is covered the day it is declared.
 */

const MISSING_ID = '00000000-0000-4000-8000-000000000000';

/** Whether the operation's body schema refuses `{}` (it has required fields). */
const needsFields = (op: ApiOperation) => op.body !== undefined && !op.body.schema.safeParse({}).success;

for (const revision of [1, 2, 3] as const) {
  const writes = apiOperations(getRevisionProfile(revision)).filter((op) => op.method !== 'get' && needsFields(op));

  describe(`API revision ${revision}: writes without a body`, () => {
    const ctx = useTestApp({ API_REVISION: String(revision) });
    let browser: { agent: Agent; csrf: string };
    let key: string;

    before(async () => {
      browser = await signedUpAgent(ctx.app);
      key = (await createKey(browser.agent, browser.csrf)).key;
    });

    it('covers the submission and every other write whose body has required fields', () => {
      expect(writes.map((op) => op.operationId)).to.include('createSetup');
      expect(writes.some((op) => op.operationId.startsWith('submit'))).to.equal(true);
    });

    for (const op of writes) {
      it(`${op.method.toUpperCase()} ${op.path} answers 400 with the validation shape`, async () => {
        const path = op.path.replace(/:(\w+)/g, MISSING_ID);
        const res =
          op.auth === 'session'
            ? await browser.agent[op.method](path).set('X-CSRF-Token', browser.csrf)
            : await request(ctx.app)[op.method](path).set('Authorization', `Bearer ${key}`);
        expect(res.status, res.text.slice(0, 300)).to.equal(400);
        expect(res.body.error).to.equal('Validation failed');
        expect(res.body.details.fieldErrors).to.be.an('object').that.is.not.empty;
        expect(res.body.details.formErrors).to.be.an('array');
      });
    }
  });
}
