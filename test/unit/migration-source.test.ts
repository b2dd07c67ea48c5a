import { expect } from 'chai';
import { readdirSync } from 'node:fs';
import { migrationSource, migrationsDirectory } from '../../src/db/knex.ts';

describe('migration source', () => {
  it('lists every migration file in name order, as Knex did from the directory', async () => {
    const files = readdirSync(migrationsDirectory)
      .filter((file) => file.endsWith('.ts'))
      .sort();
    const listed = await migrationSource.getMigrations([]);
    expect(listed).to.deep.equal(files);
    expect(listed.length).to.be.greaterThan(10);
  });

  it('records a compiled migration under its source name, so either runtime finds the database current', async () => {
    expect(migrationSource.getMigrationName('20261121000000_foundation.js')).to.equal('20261121000000_foundation.ts');
    expect(migrationSource.getMigrationName('20261121000000_foundation.ts')).to.equal('20261121000000_foundation.ts');
    const [first] = await migrationSource.getMigrations([]);
    const migration = await migrationSource.getMigration(first!);
    expect(migration.up).to.be.a('function');
  });
});
