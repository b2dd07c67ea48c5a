import { createHash } from 'node:crypto';
import { expect } from 'chai';
import {
  currentRunCountLayout,
  runCountLayoutV1,
  runCountLayoutV2,
  runCountLayoutV3,
  runCountLayoutV4,
  runCountLayoutV5,
  runCountSql,
  type RunCountLayout,
} from '../../src/runs/read-models/run-counts.ts';
import { runCubeSyncFunctionSql } from '../../src/runs/read-models/run-cube.ts';
import {
  currentRunDocument,
  extendRunDocument,
  runDocumentSql,
  runDocumentV1,
  runDocumentV2,
  runDocumentV3,
  runDocumentV4,
  runDocumentV5,
  runDocumentV6,
  runDocumentV7,
  type RunDocumentVersion,
} from '../../src/runs/read-models/run-document.ts';

// Migrations install the read models from src/runs/read-models/, so a shipped version must
// keep generating the SQL its migration installed: a fresh database must end up like the
// live ones. Each frozen version's SQL is pinned here by its sha256.

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const documentSql = (version: RunDocumentVersion) => {
  const { documentFunction, followTriggers } = runDocumentSql(version);
  return [documentFunction, ...followTriggers].join('\n');
};
const countSql = (layout: RunCountLayout) => {
  const { syncFunction, recount } = runCountSql(layout);
  return [syncFunction, recount].join('\n');
};

const DOCUMENT_VERSIONS: [name: string, version: RunDocumentVersion, sha256: string][] = [
  ['runDocumentV1', runDocumentV1, '27e65ae81a402f3f2c86dcc5e4a104c38a539ba73b4087d91ab8f2e12fb0020e'],
  ['runDocumentV2', runDocumentV2, 'fdc8fe75779df46b6e912cc69a06a54d461725845bcfec8db90b171007c070cf'],
  ['runDocumentV3', runDocumentV3, '219671d2491c38488717800ea57c2e0be363e45d8534c2854ce26b40ce104a4c'],
  ['runDocumentV4', runDocumentV4, '4743415359bd851d606572fef31e45ca9840b4246574988e5e80c607b2c7b192'],
  ['runDocumentV5', runDocumentV5, 'f324e1d53eb7018715962d5e81636e884715723507b0fb9fb67aa38fa4fa56a7'],
  ['runDocumentV6', runDocumentV6, '02d6cf7562864033148e52e6b6db016eb5fd9bc6d5e29232fc789161ae0dd945'],
  ['runDocumentV7', runDocumentV7, 'fa972931e408480994c8084eb739b8e62fee1f3829f1ce5beb1b5856931a41eb'],
];

const COUNT_LAYOUTS: [name: string, layout: RunCountLayout, sha256: string][] = [
  ['runCountLayoutV1', runCountLayoutV1, 'cef6730c144b341f0e80338d71df79da07ccd2efaebc37b31f9fb16dd95370a5'],
  ['runCountLayoutV2', runCountLayoutV2, '2a9fbfb880e73dfaf70d8c524a1d491fa72e61186a41b4daca431a4c133092bd'],
  ['runCountLayoutV3', runCountLayoutV3, 'f0aafe0dea0afd1f1bda09b606de120d453104b6454945e6274b0cd73a9e5f84'],
  ['runCountLayoutV4', runCountLayoutV4, 'f5d4b076a52bc939be1baf7e3dfd9d4541cedc4adc83056ec0bc22b8a8f10dbc'],
  ['runCountLayoutV5', runCountLayoutV5, '5d1eb68e4d320c24b87f35f54b3c883b42ff8ad23c4d9be1b44593a5b913e21c'],
];

const PINNED: [name: string, sql: () => string, sha256: string][] = [
  ...DOCUMENT_VERSIONS.map(([name, version, hash]): [string, () => string, string] => [name, () => documentSql(version), hash]),
  ...COUNT_LAYOUTS.map(([name, layout, hash]): [string, () => string, string] => [name, () => countSql(layout), hash]),
  ['the run cube', () => runCubeSyncFunctionSql, 'b1bd213f9667f680fe011c57e7838d88aa130f6f7d776e0aaf7e75d4fb07465b'],
];

describe('read-model versions', () => {
  describe('frozen versions generate the SQL their migrations shipped', () => {
    for (const [name, sql, pinned] of PINNED) {
      it(name, () => {
        expect(
          sha256(sql()),
          `${name} generates different SQL than its migration installed. A shipped version is frozen: ` +
            'revert the edit, and add a new version (and a migration that installs it) in src/runs/read-models/ instead.',
        ).to.equal(pinned);
      });
    }

    it('the current versions are pinned ones (a new version gets its pin here)', () => {
      expect(DOCUMENT_VERSIONS.map(([, version]) => version)).to.include(currentRunDocument);
      expect(COUNT_LAYOUTS.map(([, layout]) => layout)).to.include(currentRunCountLayout);
    });
  });

  describe('the run document', () => {
    const keys = (version: RunDocumentVersion) => version.fields.map(([key]) => key);

    it('ends with myEmoji, which the app replaces in the stored text', () => {
      expect(keys(currentRunDocument).at(-1)).to.equal('myEmoji');
      expect(runDocumentSql(currentRunDocument).documentFunction).to.match(/null::text as "myEmoji"\n\s+from speed_test_runs r\n/);
    });

    it('has each key once', () => {
      expect(new Set(keys(currentRunDocument)).size).to.equal(currentRunDocument.fields.length);
    });

    it('is extended by a version that inserts its keys before myEmoji and leaves the base as it was', () => {
      const before = documentSql(runDocumentV1);
      const next = extendRunDocument(runDocumentV1, {
        fields: [
          ['licence', 'm.licence'],
          ['seller', 's.name'],
        ],
        joins: ['left join sellers s on s.id = r.seller_id'],
        shownTables: [
          ['models', 'model_id', ['licence']],
          ['sellers', 'seller_id', ['name']],
        ],
      });
      expect(next.version).to.equal(2);
      expect(keys(next)).to.deep.equal([...keys(runDocumentV1).slice(0, -1), 'licence', 'seller', 'myEmoji']);
      expect(next.joins.at(-1)).to.equal('left join sellers s on s.id = r.seller_id');
      const models = next.shownTables.find(([table]) => table === 'models')!;
      expect(models[2].at(-1)).to.equal('licence');
      expect(next.shownTables.at(-1)).to.deep.equal(['sellers', 'seller_id', ['name']]);
      const { documentFunction, followTriggers } = runDocumentSql(next);
      expect(documentFunction).to.contain('s.name as "seller",\n        null::text as "myEmoji"');
      expect(followTriggers).to.have.length(5);
      expect(documentSql(runDocumentV1)).to.equal(before);
    });

    it('refuses a key twice, a version without myEmoji last, and keys that are not plain names', () => {
      expect(() => extendRunDocument(runDocumentV1, { fields: [['notes', 'r.notes']] })).to.throw(/already has "notes"/);
      const withoutMyEmoji = { ...runDocumentV1, fields: runDocumentV1.fields.slice(0, -1) };
      expect(() => runDocumentSql(withoutMyEmoji)).to.throw(/must end with "myEmoji"/);
      const quoted = extendRunDocument(runDocumentV1, { fields: [['bad"key', 'r.id']] });
      expect(() => runDocumentSql(quoted)).to.throw(/not a plain JSON key/);
    });
  });
});
