/** Short human labels shared by pages. */

type HardwareLike = {
  hwClass?: string;
  gpuName?: string;
  gpuCount?: number;
  vramGb?: number;
  totalVramGb?: number;
  isHeterogeneousGpu?: boolean;
  gpus?: { gpuName: string; count: number; vramGb: number }[];
  chipVendor?: string;
  chipFamily?: string;
  chipVariant?: string;
  unifiedMemoryGb?: number;
  cpu?: string;
  ramGb?: number;
};

export function hardwareLabel(hw: HardwareLike): string {
  if (hw.hwClass === 'UNIFIED') return `${hw.chipVendor} ${hw.chipFamily} ${hw.chipVariant} · ${formatNumber(hw.unifiedMemoryGb)} GB`;
  if (hw.hwClass === 'CPU_ONLY') return `${hw.cpu} · ${formatNumber(hw.ramGb)} GB RAM`;
  if (hw.isHeterogeneousGpu && hw.gpus) return hw.gpus.map((slot) => `${slot.count}× ${slot.gpuName}`).join(' + ');
  return `${hw.gpuCount && hw.gpuCount > 1 ? `${hw.gpuCount}× ` : ''}${hw.gpuName} · ${formatNumber(hw.vramGb)} GB`;
}

export function formatNumber(value: unknown, digits = 2): string {
  if (typeof value !== 'number' || !Number.isFinite(value)) return '—';
  return value.toLocaleString('en-US', { maximumFractionDigits: digits });
}
