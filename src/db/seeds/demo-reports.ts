import { loadSharp, processImageUpload } from '../../lib/image-pipeline.ts';
import type { Clock } from '../../lib/clock.ts';
import { formatNumber } from '../../lib/labels.ts';
import type { RevisionProfile } from '../../revisions.ts';
import { createOfflineServices } from '../../services/index.ts';
import type { Db } from '../knex.ts';

/**
 * A demo model report for the quick start (revision 3): about the most-measured demo model,
 * written by a demo user, with every feature a reader meets: a table of its runs, a task
 * list, an uploaded image, a footnote, and live cards of its leaderboard and its best run.
 * Its HTML is rendered on the first read (the cache column starts empty).
 */
export async function seedDemoReport(db: Db, profile: RevisionProfile, publicUrl: string, clock: Clock): Promise<{ reports: number }> {
  if (!profile.reports) return { reports: 0 };
  if (await db('model_reports as r').join('users as u', 'u.id', 'r.user_id').where('u.is_demo', true).first('r.id')) return { reports: 0 };
  const model = await db('models')
    .where('benchmark_count', '>', 0)
    .orderBy([{ column: 'benchmark_count', order: 'desc' }, { column: 'hf_id' }])
    .first('id', 'hf_id', 'display_name');
  if (!model) return { reports: 0 };
  const runs: { id: string; user_id: string; tok_s_out: number; quantization: string; engine_name: string }[] = await db(
    'speed_test_runs as r',
  )
    .join('engines as e', 'e.id', 'r.engine_id')
    .where({ 'r.model_id': model.id, 'r.status': 'APPROVED' })
    .whereNotNull('r.tok_s_out')
    .orderBy('r.tok_s_out', 'desc')
    .limit(4)
    .select('r.id', 'r.user_id', 'r.tok_s_out', 'r.quantization', 'e.name as engine_name');
  if (runs.length === 0) return { reports: 0 };
  const author = runs[0]!.user_id;

  // A small bar picture stands in for a photo of the test bench.
  const bars = runs
    .map(
      (run, i) =>
        `<rect x="20" y="${20 + i * 40}" width="${Math.max(10, (run.tok_s_out / runs[0]!.tok_s_out) * 560)}" height="28" fill="#1f5fbf"/>`,
    )
    .join('');
  const sharp = await loadSharp();
  const picture = await sharp(
    Buffer.from(
      `<svg xmlns="http://www.w3.org/2000/svg" width="600" height="${40 + runs.length * 40}"><rect width="100%" height="100%" fill="#f6f7f9"/>${bars}</svg>`,
    ),
  )
    .png()
    .toBuffer();
  const image = await createOfflineServices(db, profile, clock).images.store(author, 'report', await processImageUpload(picture));

  const embed = (path: string) => `[[report-embed:${encodeURIComponent(`${publicUrl}${path}`)}]]`;
  const content = [
    `## What was measured`,
    '',
    '| engine | quant | tok/s |',
    '|:--|:--|--:|',
    ...runs.map((run) => `| ${run.engine_name} | ${run.quantization} | ${formatNumber(run.tok_s_out, 1)} |`),
    '',
    '- [x] same prompt and output length for every run',
    '- [x] flash attention on',
    '- [ ] speculative decoding (next time)',
    '',
    `[[report-image:${image.id}]]`,
    '',
    '## The leaderboard today',
    '',
    embed(`/?hfId=${encodeURIComponent(model.hf_id)}`),
    '',
    '## The fastest run',
    '',
    embed(`/runs/${runs[0]!.id}`),
    '',
    `Numbers are single-stream decode speed[^1]. ~~Batch runs~~ are left out.`,
    '',
    '[^1]: Output tokens per second of one request at a time.',
  ].join('\n');
  const now = clock.now();
  await db('model_reports').insert({
    user_id: author,
    model_id: model.id,
    title: `${model.display_name}: which quantization and engine`,
    summary: 'The demo report: a table of runs, a task list, an image, a footnote and live cards of the leaderboard and the best run.',
    content,
    tags: ['demo', 'quantization'],
    benchmark_run_ids: runs.map((run) => run.id),
    image_ids: [image.id],
    published: true,
    published_at: now,
    created_at: now,
    updated_at: now,
  });
  return { reports: 1 };
}
