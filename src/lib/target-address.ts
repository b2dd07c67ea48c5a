// PLACEHOLDER until the guard branch lands.
export function parseAllowHosts(raw: string | undefined): string[] {
  return (raw ?? '').split(',').map((entry) => entry.trim().toLowerCase()).filter(Boolean);
}
