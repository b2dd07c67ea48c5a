import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A fresh directory for each test of the suite (`path()`), removed after it, with what the test
 * made there that must be closed first (`closeAfter`): the byte files' tests and the answer file's.
 */
export function useTempDirectory(prefix: string): { path(): string; closeAfter<F extends { close(): void }>(made: F): F } {
  let directory = '';
  const open: { close(): void }[] = [];
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), prefix));
  });
  afterEach(() => {
    for (const made of open.splice(0)) made.close();
    rmSync(directory, { recursive: true, force: true });
  });
  return {
    path: () => directory,
    closeAfter(made) {
      open.push(made);
      return made;
    },
  };
}
