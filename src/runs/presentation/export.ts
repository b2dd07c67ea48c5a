import type { Response } from 'express';
import { stringify } from 'csv-stringify';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { defuseFormulas } from '../../lib/csv-cells.ts';
import { hardwareLabel, notStated } from '../../lib/labels.ts';

type ExportedRun = Record<string, any> & { rank?: number };

/**
 * One flat record per run: the columns of a CSV export. A field the submitter did not
 * state is an empty cell (numeric columns stay numeric for sorting and sums), and the
 * `notStated` column names those fields; JSON Lines keeps the spec's values and
 * `defaultedFields`, as the API answers.
 */
function flatRecord(run: ExportedRun): Record<string, unknown> {
  const hw = run.hardware ?? {};
  const stated = (field: string) => (notStated(run, field) ? undefined : run[field]);
  return {
    rank: run.rank,
    id: run.id,
    createdAt: run.createdAt,
    hfId: run.hfId,
    params: run.model?.params,
    isMoE: run.model?.isMoE,
    hwClass: hw.hwClass,
    hardware: hardwareLabel(hw),
    gpuName: hw.gpuName,
    gpuCount: hw.gpuCount,
    vramGb: hw.vramGb,
    chip: hw.hwClass === 'UNIFIED' ? `${hw.chipVendor} ${hw.chipFamily} ${hw.chipVariant}` : undefined,
    memoryGb: hw.totalVramGb ?? hw.unifiedMemoryGb ?? hw.ramGb,
    cpu: hw.cpu,
    os: hw.os,
    engineName: run.engineName,
    engineVersion: run.engineVersion,
    backend: run.backend,
    quantization: run.quantization,
    tokSOut: run.tokSOut,
    tokSPrefill: run.tokSPrefill,
    tokSTotal: run.tokSTotal,
    ttftMs: run.ttftMs,
    peakVramGb: run.peakVramGb,
    contextLength: stated('contextLength'),
    batchSize: stated('batchSize'),
    concurrency: run.engineFlags?.concurrency,
    tokPerWatt: run.tokPerWatt,
    powerSource: run.powerSource,
    tokPerDollar: run.tokPerDollar,
    plausibility: run.plausibility,
    decodeBoundTokS: run.decodeBoundTokS,
    plausibilityReason: run.plausibilityReason,
    verdict: run.verdict?.verdict,
    peerCount: run.verdict?.peers?.count,
    peerBestTokS: run.verdict?.peers?.bestTokS,
    peerRatio: run.verdict?.peers?.ratio,
    peerBasis: run.verdict?.peers?.basis,
    verifiedRun: run.verifiedRun,
    username: run.user?.username,
    verified: run.user?.verified,
    notStated: Array.isArray(run.defaultedFields) ? run.defaultedFields.join(' ') : undefined,
  };
}

function csvRows(runs: AsyncIterable<ExportedRun>): Readable {
  return Readable.from(
    (async function* () {
      for await (const run of runs) {
        // Every text cell, numbers left alone: submitted text must not open as a formula.
        yield Object.fromEntries(
          Object.entries(flatRecord(run)).map(([key, value]) => [key, typeof value === 'string' ? defuseFormulas(value) : value]),
        );
      }
    })(),
    { objectMode: true },
  );
}

function jsonLines(runs: AsyncIterable<ExportedRun>): Readable {
  return Readable.from(
    (async function* () {
      for await (const run of runs) yield `${JSON.stringify(run)}\n`;
    })(),
  );
}

/**
 * The runs with the first one read already. A query that fails outright (the database
 * unreachable) then fails here, before anything is sent, and gets its error answer; once the
 * stream is piped, a failure can only cut the download short.
 */
async function firstReadAhead(runs: AsyncIterable<ExportedRun>): Promise<AsyncIterable<ExportedRun>> {
  const iterator = runs[Symbol.asyncIterator]();
  const first = await iterator.next();
  return (async function* () {
    try {
      for (let next = first; !next.done; next = await iterator.next()) yield next.value;
    } finally {
      // A download abandoned midway closes the database cursor behind it.
      await iterator.return?.();
    }
  })();
}

/**
 * Streams every run as CSV or JSON Lines with a download name. Rows flow from a database
 * cursor to the socket with back-pressure, so memory stays flat however many rows match.
 */
export async function sendRunExport(
  res: Response,
  format: 'csv' | 'jsonl',
  basename: string,
  allRuns: AsyncIterable<ExportedRun>,
): Promise<void> {
  const runs = await firstReadAhead(allRuns);
  const filename = `${basename}.${format}`;
  // A piped response carries ten 'close' listeners, the most Node's leak warning lets pass: on-finished's two,
  // compression's, the answer cache's, and the pipeline's six. One more middleware would print the warning.
  res.setMaxListeners(20);
  res.status(200);
  res.set('Content-Disposition', `attachment; filename="${filename}"`);
  res.set('Cache-Control', 'no-store');
  if (format === 'csv') {
    res.type('text/csv; charset=utf-8');
    // Columns named up front, so an export with no rows still has its header line.
    const columns = Object.keys(flatRecord({}));
    // Text always quoted (numbers not): to any reader that honours quotes each text field
    // is one cell, whatever separators it holds.
    await pipeline(csvRows(runs), stringify({ header: true, columns, quoted_string: true, cast: { boolean: (v) => String(v) } }), res);
  } else {
    res.type('application/x-ndjson; charset=utf-8');
    await pipeline(jsonLines(runs), res);
  }
}
