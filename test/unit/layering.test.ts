/**
 * The layering the README describes, checked on the source (issue 31 point 4): nothing below
 * the HTTP layer imports upwards, and services are built only by the container, so a
 * factory's signature shows every service it uses.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';

const SRC = path.resolve('src');

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

const relative = (file: string) => path.relative(SRC, file).split(path.sep).join('/');

/** What each file imports, as paths under src/ (relative specifiers only). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from|import\()\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map((match) =>
    relative(path.resolve(path.dirname(file), match[1]!)),
  );
}

/** Folders (and files) below the HTTP layer, and what they must not import. */
const LOWER = [
  'services/',
  'lib/',
  'schemas/',
  'db/',
  'data/',
  'runs/submission/',
  'runs/reads/',
  'runs/read-index/',
  'runs/read-models/',
  'runs/facets.ts',
  'runs/run-json.ts',
];
const UPPER = ['web/', 'controllers/', 'api/', 'routes/', 'runs/presentation/', 'runs/http/'];

describe('layering of src/', () => {
  const files = sourceFiles(SRC);

  it('reads the source tree', () => {
    expect(files.length).to.be.above(150);
    expect(files.map(relative)).to.include.members(['services/index.ts', 'runs/facets.ts']);
  });

  it('no service, lib, schema, db or run-model file imports the pages, controllers, API declarations or routes', () => {
    const upward = files
      .filter((file) => LOWER.some((prefix) => relative(file).startsWith(prefix)))
      .flatMap((file) =>
        importsOf(file)
          .filter((target) => UPPER.some((prefix) => target.startsWith(prefix)))
          .map((target) => `${relative(file)} -> ${target}`),
      );
    expect(upward).to.deep.equal([]);
  });

  it('services and run reads are constructed only by the container (src/services/index.ts)', () => {
    const constructions = files
      .filter((file) => relative(file) !== 'services/index.ts')
      .flatMap((file) =>
        readFileSync(file, 'utf8')
          .split('\n')
          .flatMap((line, i) =>
            /\bcreate[A-Z]\w*(Service|Reads)\(/.test(line) && !/^\s*(export\s+)?function\b/.test(line) && !/^\s*(\*|\/\/)/.test(line)
              ? [`${relative(file)}:${i + 1}`]
              : [],
          ),
      );
    expect(constructions).to.deep.equal([]);
  });
});
