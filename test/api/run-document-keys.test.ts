import { expect } from 'chai';
import type { z } from 'zod';
import { currentRunDocument } from '../../src/runs/read-models/run-document.ts';
import { getRevisionProfile, revisionNumbers } from '../../src/revisions.ts';
import { runResponseSchemas } from '../../src/schemas/responses.schema.ts';
import type { SpeedTestRun } from '../../src/runs/reads/speed-test-reads.ts';
import { speedTestRunForRevision } from '../../src/runs/run-json.ts';
import { useTestApp } from '../helpers/app.ts';
import { account, submitRun } from '../helpers/moderation.ts';

// Guard: the stored run document (src/runs/read-models/run-document.ts) and the run
// response schema (src/schemas/responses.schema.ts) must name the same keys, so a field
// added to one and not the other fails here rather than in an answer.

const objectKeys = (schema: z.ZodType) => Object.keys((schema as z.ZodObject).shape);

/** The keys only one side has (both lists empty when they agree), so a failure names them. */
function keyDifference(documentKeys: readonly string[], schemaKeys: readonly string[]) {
  return {
    onlyInDocument: documentKeys.filter((key) => !schemaKeys.includes(key)),
    onlyInSchema: schemaKeys.filter((key) => !documentKeys.includes(key)),
  };
}
const NO_DIFFERENCE = { onlyInDocument: [], onlyInSchema: [] };
const NESTED = ['model', 'user', 'engine'] as const;

describe('run documents and the run response schemas name the same keys', () => {
  const ctx = useTestApp({ API_REVISION: '3' }, { fakeHub: true });
  let document: string;

  before(async () => {
    const who = await account(ctx, 'keys');
    const run = await submitRun(ctx, who, { notes: 'guard run' });
    ({ document } = await ctx.db('speed_test_run_documents').where({ run_id: run.id }).first('document'));
  });

  for (const revision of revisionNumbers) {
    describe(`revision ${revision}`, () => {
      const profile = getRevisionProfile(revision);
      const { shape } = runResponseSchemas(profile).run;
      const run = () => speedTestRunForRevision(profile, JSON.parse(document) as SpeedTestRun);

      it('the stored document, cut down to the revision, has the schema’s keys', () => {
        expect(keyDifference(Object.keys(run()), Object.keys(shape))).to.deep.equal(NO_DIFFERENCE);
      });

      it(`so do its nested ${NESTED.join(', ')}`, () => {
        const answered = run();
        for (const field of NESTED) {
          expect(keyDifference(Object.keys(answered[field] as object), objectKeys(shape[field]!)), field).to.deep.equal(NO_DIFFERENCE);
        }
      });
    });
  }

  it('the current document version’s keys are revision 3’s schema keys', () => {
    const keys = currentRunDocument.fields.map(([key]) => key);
    expect(keyDifference(keys, Object.keys(runResponseSchemas(getRevisionProfile(3)).run.shape))).to.deep.equal(NO_DIFFERENCE);
  });
});
