/**
 * What a server-side execution sends: one prompt per item of the chosen tasks, in suite
 * order, rendered from the task's template. Pure.
 */
import { createHash } from 'node:crypto';
import type { QualityItem, SuiteDoc, SuiteTask } from '../schemas/quality.schema.ts';

export interface PlannedItem {
  /** Position in the plan: the key an item's stored result is kept under. */
  seq: number;
  task: SuiteTask;
  itemIndex: number;
  item: QualityItem;
}

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** `A. x\nB. y`, as `{{choices}}` renders them. */
export function choicesText(choices: readonly string[]): string {
  return choices.map((choice, index) => `${LETTERS[index]}. ${choice}`).join('\n');
}

/** The task's template with `{{input}}` and `{{choices}}` filled in (each as often as it appears). */
export function renderPrompt(task: Pick<SuiteTask, 'promptTemplate'>, item: Pick<QualityItem, 'input' | 'choices'>): string {
  const template = task.promptTemplate ?? '{{input}}';
  const choices = item.choices ? choicesText(item.choices) : '';
  // One pass, so text inside the input that looks like a placeholder stays as it is.
  return template.replace(/\{\{(input|choices)\}\}/g, (_match, name: string) => (name === 'input' ? item.input : choices));
}

export const promptHash = (prompt: string) => createHash('sha256').update(prompt).digest('hex');

/** Whether the deployment's judge scores this task's items. */
export function isJudged(doc: Pick<SuiteDoc, 'scoringMethod'>, task: Pick<SuiteTask, 'taskType'>): boolean {
  return doc.scoringMethod === 'llm_judge' || task.taskType === 'judge';
}

/** Every item of the chosen tasks (all tasks when `taskKeys` is undefined), numbered in order. */
export function planItems(
  doc: SuiteDoc,
  itemsOf: ReadonlyMap<string, readonly QualityItem[]>,
  taskKeys?: readonly string[],
): PlannedItem[] {
  const chosen = taskKeys ? new Set(taskKeys) : null;
  const plan: PlannedItem[] = [];
  for (const task of doc.tasks as SuiteTask[]) {
    if (chosen && !chosen.has(task.key)) continue;
    (itemsOf.get(task.key) ?? []).forEach((item, itemIndex) => plan.push({ seq: plan.length, task, itemIndex, item }));
  }
  return plan;
}
