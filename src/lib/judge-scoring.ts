/**
 * The deployment's LLM judge for `llm_judge` suites: the prompt it is given (the question,
 * the rubric and the reference answer, then the response) and how its verdict is read.
 * Pure.
 */
import { capResponse, stripReasoning } from './quality-scoring.ts';

/** The judge scores on 0-10; item scores are that divided by 10. */
export const JUDGE_SCALE = 10;
/** An execution fails when more than this share of the judge's answers cannot be read. */
export const MAX_UNPARSED_JUDGE_SHARE = 0.1;

export interface JudgeCase {
  question: string;
  response: string;
  rubric?: string;
  referenceAnswer?: string;
  /** Accepted answers, when the item has gold. */
  gold?: readonly (string | number)[];
}

export function judgePrompt(judged: JudgeCase): string {
  const parts = [
    'You are grading an answer to a question. Judge only the answer, following the rubric when one is given.',
    `## Question\n${judged.question}`,
  ];
  if (judged.rubric) parts.push(`## Rubric\n${judged.rubric}`);
  if (judged.referenceAnswer) parts.push(`## Reference answer\n${judged.referenceAnswer}`);
  if (judged.gold?.length) parts.push(`## Accepted answers\n${judged.gold.map(String).join('\n')}`);
  parts.push(`## Answer to grade\n${capResponse(stripReasoning(judged.response))}`);
  parts.push(
    `Reply with a JSON object and nothing else: {"score": <integer 0-${JUDGE_SCALE}>, "rationale": "<one sentence>"}. ` +
      `${JUDGE_SCALE} means fully correct and complete, 0 means wrong or missing.`,
  );
  return parts.join('\n\n');
}

export interface JudgeVerdict {
  /** In [0, 1]. */
  score: number;
  rationale: string | null;
}

const clampScore = (value: number) => value >= 0 && value <= JUDGE_SCALE;

/**
 * Reads the judge's verdict: a JSON object with `score` (possibly inside a code fence or
 * after reasoning), else `Score: 7`, `7/10` or `Rating: 7 out of 10`. A score outside 0-10 or
 * no score at all: null (counted as unparsed).
 */
export function parseJudgeVerdict(raw: string): JudgeVerdict | null {
  const text = stripReasoning(raw).trim();
  for (const candidate of text.match(/\{[^{}]*\}/g) ?? []) {
    try {
      const parsed = JSON.parse(candidate) as { score?: unknown; rating?: unknown; rationale?: unknown; reason?: unknown };
      const value = typeof parsed.score === 'string' ? Number(parsed.score) : (parsed.score ?? parsed.rating);
      if (typeof value === 'number' && Number.isFinite(value) && clampScore(value)) {
        const rationale = parsed.rationale ?? parsed.reason;
        return { score: value / JUDGE_SCALE, rationale: typeof rationale === 'string' ? rationale.slice(0, 2000) : null };
      }
    } catch {
      // not this one
    }
  }
  const patterns = [
    /\b(?:score|rating|grade)\s*[:=]?\s*\**\s*(\d+(?:\.\d+)?)(?:\s*(?:\/|out of)\s*10)?/i,
    /\b(\d+(?:\.\d+)?)\s*(?:\/|out of)\s*10\b/i,
  ];
  for (const pattern of patterns) {
    const match = pattern.exec(text);
    if (!match) continue;
    const value = Number(match[1]);
    if (Number.isFinite(value) && clampScore(value))
      return { score: value / JUDGE_SCALE, rationale: text.length <= 2000 ? text : `${text.slice(0, 1999)}…` };
  }
  return null;
}
