// Adds the demo catalogue, sample runs and (revision 3) marketplace listings to a database: npm run seed:demo [-- --runs N]
// Uses DATABASE_URL, or the embedded database under DATA_DIR. Refused when NODE_ENV=production.
import { loadConfig } from '../config.ts';
import { runCli } from './run-cli.ts';
import { openDatabase } from '../db/open.ts';
import { seedDemoCatalogue } from '../db/seeds/demo-models.ts';
import { seedDemoListings } from '../db/seeds/demo-listings.ts';
import { seedDemoQuality } from '../db/seeds/demo-quality.ts';
import { seedDemoReport } from '../db/seeds/demo-reports.ts';
import { seedDemoRuns } from '../db/seeds/demo-runs.ts';
import { systemClock } from '../lib/clock.ts';
import { createLogger } from '../logger.ts';
import { getRevisionProfile } from '../revisions.ts';

async function main(): Promise<number> {
  const config = loadConfig();
  if (config.nodeEnv === 'production') {
    process.stderr.write('Refusing to add demo data with NODE_ENV=production.\n');
    return 1;
  }
  const runsFlag = process.argv.indexOf('--runs');
  const runs = runsFlag > 0 ? Number.parseInt(process.argv[runsFlag + 1] ?? '', 10) : 300;
  if (!Number.isInteger(runs) || runs < 1 || runs > 100_000) {
    process.stderr.write('--runs must be a whole number from 1 to 100000\n');
    return 2;
  }
  const database = await openDatabase(config, createLogger('warn'));
  try {
    await seedDemoCatalogue(database.db);
    const profile = getRevisionProfile(config.revision);
    const seeded = await seedDemoRuns(database.db, profile, { runs });
    const quality = await seedDemoQuality(database.db, profile, systemClock);
    const market = await seedDemoListings(database.db, profile, systemClock);
    process.stdout.write(
      seeded.runs > 0 ? `Added ${seeded.users} demo users and ${seeded.runs} demo runs.\n` : 'Demo data is already there; nothing added.\n',
    );
    if (quality.runs > 0) process.stdout.write(`Added ${quality.suites} demo quality suites and ${quality.runs} demo quality runs.\n`);
    if (market.listings > 0) process.stdout.write(`Added ${market.listings} demo marketplace listings.\n`);
    if ((await seedDemoReport(database.db, profile, config.publicUrl, systemClock)).reports > 0)
      process.stdout.write('Added a demo model report.\n');
    return 0;
  } finally {
    await database.close();
  }
}

runCli(main);
