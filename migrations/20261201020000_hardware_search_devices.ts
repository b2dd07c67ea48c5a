import type { Knex } from 'knex';
import { refreshHardwareSearch } from '../src/runs/submission/hardware-search.ts';

/**
 * `hardwareName` also matches the catalogue name a written name resolves to
 * (`hardwareSearchText`): 'Tesla V100' finds 'Tesla V100-PCIE-16GB', 'RX 9070 GRE' finds
 * 'AMD Radeon Graphics (RADV GFX1201)'. Stored profiles and runs get the new text.
 */
export async function up(knex: Knex): Promise<void> {
  await refreshHardwareSearch(knex);
}

export async function down(): Promise<void> {
  // The added catalogue names only widen matches for older code; they stay.
}
