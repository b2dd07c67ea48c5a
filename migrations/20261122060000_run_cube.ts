import type { Knex } from 'knex';
import { createRunCube, dropRunCube } from '../src/runs/read-models/run-cube.ts';

/**
 * Approved runs counted per cell of the five main leaderboard filters, so the exact total
 * of any combination of them is a sum over about 25,000 cells (see run-cube.ts).
 */
export async function up(knex: Knex): Promise<void> {
  await createRunCube(knex);
}

export async function down(knex: Knex): Promise<void> {
  await dropRunCube(knex);
}
