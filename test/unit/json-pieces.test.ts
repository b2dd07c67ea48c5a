/**
 * Pages of stored documents are answered from pieces written once into the buffer that is sent
 * (src/lib/json-text.ts, src/runs/run-json.ts): the bytes must be exactly the text's UTF-8.
 */
import { expect } from 'chai';
import { JsonPieces, JsonText, jsonArray, jsonObject } from '../../src/lib/json-text.ts';
import { documentArray } from '../../src/runs/run-json.ts';

describe('JSON answers written from pieces', () => {
  it('writes the same bytes as the joined text encodes to, multi-byte characters included', () => {
    const pieces = new JsonPieces().push('[', '{"name":"Grüße ✓ 🚀"}', ',', '{"n":1}', ']');
    expect(pieces.text()).to.equal('[{"name":"Grüße ✓ 🚀"},{"n":1}]');
    expect(pieces.bytes().equals(Buffer.from(pieces.text()))).to.equal(true);
    expect(new JsonPieces().bytes().length).to.equal(0);
  });

  it('copies pieces that are bytes as they are, and decodes them for the text', () => {
    const stored = Buffer.from('{"name":"Grüße ✓"}');
    const pieces = new JsonPieces().push('[', stored, ',', stored.subarray(0, 8), '"x"}', ']');
    expect(pieces.text()).to.equal('[{"name":"Grüße ✓"},{"name":"x"}]');
    expect(pieces.bytes().equals(Buffer.from(pieces.text()))).to.equal(true);
  });

  it('splices pieces, ready JSON and plain values into one object', () => {
    const rows = new JsonPieces().push('[', '{"id":"a"}', ']');
    const body = jsonObject({ rows, note: new JsonText('{"x":[1,2]}'), total: 3, skipped: undefined, label: 'é"' });
    expect(JSON.parse(body.toString())).to.deep.equal({ rows: [{ id: 'a' }], note: { x: [1, 2] }, total: 3, label: 'é"' });
    expect(jsonObject({}).toString()).to.equal('{}');
    expect(JSON.parse(jsonObject({ list: jsonArray(['1', '"two"']) }).toString())).to.deep.equal({ list: [1, 'two'] });
  });

  it("ranks stored documents and puts the reader's reaction in place of the trailing null", () => {
    const rows = [
      { document: '{"id":"a","myEmoji":null}', my_emoji: null },
      { document: '{"id":"b","myEmoji":null}', my_emoji: '🔥' },
    ];
    // Documents come as texts (the SQL path) or as bytes (the read index's file): the same answer.
    for (const asBytes of [rows, rows.map((row) => ({ ...row, document: Buffer.from(row.document) }))])
      expect(documentArray(asBytes, 51).bytes().equals(documentArray(rows, 51).bytes())).to.equal(true);
    const page = documentArray(rows, 51);
    expect(JSON.parse(page.text())).to.deep.equal([
      { rank: 51, id: 'a', myEmoji: null },
      { rank: 52, id: 'b', myEmoji: '🔥' },
    ]);
    expect(page.bytes().equals(Buffer.from(page.text()))).to.equal(true);
    expect(documentArray([], 1).text()).to.equal('[]');
    expect(JSON.parse(documentArray(rows).text())).to.deep.equal([
      { id: 'a', myEmoji: null },
      { id: 'b', myEmoji: '🔥' },
    ]);
  });
});
