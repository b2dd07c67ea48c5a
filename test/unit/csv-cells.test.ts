import { expect } from 'chai';
import fc from 'fast-check';
import { defuseFormulas } from '../../src/lib/csv-cells.ts';
import { formulaCells, separatorName, SPREADSHEET_SEPARATORS } from '../helpers/spreadsheet.ts';

/** `text` as one quoted field in the middle of a CSV line, the way the export writes it. */
const inLine = (text: string) => `1,"${text.replaceAll('"', '""')}",2`;

describe('defuseFormulas: CSV text no spreadsheet runs', () => {
  it('puts an apostrophe before a formula at the start or after any separator, past spaces and quotes', () => {
    const cases: [string, string][] = [
      ['=SUM(A1)', "'=SUM(A1)"],
      ['@SUM(A1)', "'@SUM(A1)"],
      ['-2+3', "'-2+3"],
      ['+1', "'+1"],
      ['RTX;=1+1;', "RTX;'=1+1;"],
      ['a,=1+1', "a,'=1+1"],
      ['x\t=1+1', "x\t'=1+1"],
      ['x\n-1', "x\n'-1"],
      ['x\r\n@a', "x\r\n'@a"],
      ['Q4; "=1+1"', 'Q4; "\'=1+1"'],
      ['  =1', "  '=1"],
      // A tab starts a cell of its own, so the apostrophe goes after it.
      ['a;\t=1', "a;\t'=1"],
      ['a;=1;+2,-3\t@4', "a;'=1;'+2,'-3\t'@4"],
    ];
    for (const [text, defused] of cases) expect(defuseFormulas(text), JSON.stringify(text)).to.equal(defused);
  });

  it('leaves text alone where no cell can start with a formula character', () => {
    for (const text of [
      'NVIDIA GeForce RTX 4090',
      'b4500-rc1',
      '1× RTX 3090 + 1× RTX 4090',
      'Q4_K_M',
      'a,b;c',
      'x = y',
      "'=already text",
      '',
    ]) {
      expect(defuseFormulas(text)).to.equal(text);
    }
  });

  // Text made mostly of what matters here: separators, line breaks, quotes, spaces, triggers.
  const hostileText = fc.string({
    unit: fc.constantFrom(',', ';', '\t', '\n', '\r', ' ', '\u00a0', '"', "'", '=', '+', '-', '@', 'a', '1'),
    maxLength: 40,
  });

  for (const separator of SPREADSHEET_SEPARATORS) {
    it(`leaves no formula cell when any text, alone or as a quoted field, is split on ${separatorName(separator)}`, () => {
      fc.assert(
        fc.property(hostileText, (text) => {
          const defused = defuseFormulas(text);
          expect(formulaCells(defused, separator), JSON.stringify(defused)).to.deep.equal([]);
          expect(formulaCells(inLine(defused), separator), JSON.stringify(defused)).to.deep.equal([]);
        }),
        { numRuns: 1000 },
      );
    });
  }

  it('only adds apostrophes, and defusing twice changes nothing more', () => {
    fc.assert(
      fc.property(hostileText, (text) => {
        const defused = defuseFormulas(text);
        expect(defused.replaceAll("'", '')).to.equal(text.replaceAll("'", ''));
        expect(defuseFormulas(defused)).to.equal(defused);
      }),
      { numRuns: 1000 },
    );
  });
});
