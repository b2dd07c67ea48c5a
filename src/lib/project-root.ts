import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The project's directory (the nearest one above this module holding package.json), where
 * `views/` and `public/` are read from: the same whether this module runs as TypeScript
 * (src/lib) or compiled (dist/src/lib, `npm run build`).
 */
export const projectRoot = nearestPackageDirectory(path.dirname(fileURLToPath(import.meta.url)));

function nearestPackageDirectory(from: string): string {
  for (let directory = from; ; directory = path.dirname(directory)) {
    if (existsSync(path.join(directory, 'package.json'))) return directory;
    if (path.dirname(directory) === directory) throw new Error(`no package.json above ${from}`);
  }
}
