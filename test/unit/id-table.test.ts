/**
 * The read index's id table (src/runs/read-index/id-table.ts) names slots by their uuids as
 * Postgres writes them, one id at a time or a page's ids as one array literal.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { IdTable } from '../../src/runs/read-index/id-table.ts';

describe('read index id table', () => {
  it('gives back every id as Postgres writes it (lower case), alone and in array literals of any length', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.uuid(), { minLength: 1, maxLength: 200, selector: (id) => id.toLowerCase() }),
        fc.boolean(),
        (ids, upper) => {
          const table = new IdTable();
          const slots = ids.map((id, next) => table.slotFor(upper ? id.toUpperCase() : id, next));
          expect(slots.map((slot) => table.idOf(slot))).to.deep.equal(ids.map((id) => id.toLowerCase()));
          // In the order asked, repeated slots included: longer than the first scratch buffer too.
          const asked = [...slots, ...slots.slice(0, 3)].reverse();
          expect(table.arrayLiteral(asked)).to.equal(`{${asked.map((slot) => ids[slot]!.toLowerCase()).join(',')}}`);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('writes an empty array as {}', () => {
    expect(new IdTable().arrayLiteral([])).to.equal('{}');
  });
});
