// Creates an admin account, or makes an existing account admin with a new password:
//   npm run admin -- <username>          (password from ADMIN_PASSWORD, else read from stdin)
// Uses DATABASE_URL, or the embedded database under DATA_DIR when the server is not running.
import { createInterface } from 'node:readline/promises';
import { loadConfig } from '../config.ts';
import { runCli } from './run-cli.ts';
import { openDatabase } from '../db/open.ts';
import { createLogger } from '../logger.ts';
import { parseOrThrow } from '../lib/validation.ts';
import { signUpSchema } from '../schemas/account.schema.ts';
import { getRevisionProfile } from '../revisions.ts';
import { createOfflineServices } from '../services/index.ts';

async function readPassword(): Promise<string> {
  if (process.env.ADMIN_PASSWORD) return process.env.ADMIN_PASSWORD;
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: false });
  process.stderr.write('Password: ');
  const line = await rl[Symbol.asyncIterator]().next();
  rl.close();
  return typeof line.value === 'string' ? line.value : '';
}

async function main(): Promise<number> {
  const username = process.argv[2];
  if (!username) {
    process.stderr.write('usage: npm run admin -- <username>   (password from ADMIN_PASSWORD or stdin)\n');
    return 2;
  }
  const input = parseOrThrow(signUpSchema, { username, password: await readPassword() });
  const { ADMIN_USERNAME: _u, ADMIN_PASSWORD: _p, ...env } = process.env;
  const config = loadConfig(env);
  const database = await openDatabase(config, createLogger('warn'));
  try {
    const admin = await createOfflineServices(database.db, getRevisionProfile(config.revision)).users.ensureAdmin(
      input.username,
      input.password,
    );
    process.stdout.write(`${admin.username} is an admin\n`);
    return 0;
  } finally {
    await database.close();
  }
}

runCli(main);
