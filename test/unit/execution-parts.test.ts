/**
 * The pure parts of server-side execution: prompt rendering, the OpenAI-compatible answer
 * formats (JSON and server-sent events), base URLs with or without /v1, and reading the
 * judge's verdict.
 */
import { expect } from 'chai';
import { completionText, openAiUrl, TargetAnswerError } from '../../src/clients/openai-compatible.ts';
import { choicesText, isJudged, renderPrompt } from '../../src/lib/execution-plan.ts';
import { judgePrompt, parseJudgeVerdict } from '../../src/lib/judge-scoring.ts';

describe('Execution parts', () => {
  describe('renderPrompt', () => {
    it('fills {{input}} and {{choices}} (as "A. x" lines) wherever they appear', () => {
      expect(
        renderPrompt({ promptTemplate: 'Q: {{input}}\n{{choices}}\nAgain: {{input}}' }, { input: 'Sky?', choices: ['Green', 'Blue'] }),
      ).to.equal('Q: Sky?\nA. Green\nB. Blue\nAgain: Sky?');
      expect(choicesText(['x', 'y', 'z'])).to.equal('A. x\nB. y\nC. z');
    });

    it('leaves placeholder-like text inside the input alone', () => {
      expect(renderPrompt({ promptTemplate: '{{input}} / {{choices}}' }, { input: 'Write {{choices}} literally' })).to.equal(
        'Write {{choices}} literally / ',
      );
    });

    it('judges tasks of llm_judge suites and judge tasks', () => {
      expect(isJudged({ scoringMethod: 'llm_judge' }, { taskType: 'qa' })).to.equal(true);
      expect(isJudged({ scoringMethod: 'exact_match' }, { taskType: 'judge' })).to.equal(true);
      expect(isJudged({ scoringMethod: 'f1' }, { taskType: 'qa' })).to.equal(false);
    });
  });

  describe('OpenAI-compatible answers', () => {
    it('builds /v1 URLs whether or not the base URL ends in /v1', () => {
      expect(openAiUrl('https://h.example/', 'models')).to.equal('https://h.example/v1/models');
      expect(openAiUrl('https://h.example/v1', 'chat/completions')).to.equal('https://h.example/v1/chat/completions');
      expect(openAiUrl('https://h.example/proxy/v1/', 'models')).to.equal('https://h.example/proxy/v1/models');
    });

    it('reads a JSON completion, a legacy text choice and a null content', () => {
      expect(completionText('application/json', JSON.stringify({ choices: [{ message: { content: 'Hi' } }] }))).to.equal('Hi');
      expect(completionText('application/json', JSON.stringify({ choices: [{ text: 'Old' }] }))).to.equal('Old');
      expect(completionText('application/json', JSON.stringify({ choices: [{ message: { content: null } }] }))).to.equal('');
    });

    it('joins streamed deltas up to [DONE]', () => {
      const body = [
        'data: {"choices":[{"delta":{"role":"assistant"}}]}',
        'data: {"choices":[{"delta":{"content":"The an"}}]}',
        ': keep-alive',
        'data: {"choices":[{"delta":{"content":"swer is 4"}}]}',
        'data: [DONE]',
        'data: {"choices":[{"delta":{"content":"ignored"}}]}',
      ].join('\n\n');
      expect(completionText('text/event-stream', body)).to.equal('The answer is 4');
    });

    it('refuses what is not a completion', () => {
      for (const [type, body] of [
        ['application/json', '<html>'],
        ['application/json', '{"error":"x"}'],
        ['text/event-stream', 'data: {not json'],
      ] as const) {
        expect(() => completionText(type, body), body).to.throw(TargetAnswerError);
      }
    });
  });

  describe('the judge', () => {
    it('puts the question, rubric, reference and the answer (reasoning stripped) in its prompt', () => {
      const prompt = judgePrompt({
        question: 'Q?',
        response: '<think>hmm</think>Forty',
        rubric: 'Be exact',
        referenceAnswer: '40',
        gold: [40],
      });
      expect(prompt)
        .to.include('## Question\nQ?')
        .and.include('## Rubric\nBe exact')
        .and.include('## Reference answer\n40')
        .and.include('## Answer to grade\nForty');
      expect(prompt).not.to.include('hmm');
    });

    it('reads JSON verdicts, also inside prose or fences, and "Score: n" or "n/10" forms', () => {
      expect(parseJudgeVerdict('{"score": 7, "rationale": "ok"}')).to.deep.equal({ score: 0.7, rationale: 'ok' });
      expect(parseJudgeVerdict('Sure.\n```json\n{"score": "10"}\n```')).to.deep.equal({ score: 1, rationale: null });
      expect(parseJudgeVerdict('<think>{"score": 1}</think>{"score": 9}')!.score).to.equal(0.9);
      expect(parseJudgeVerdict('Score: 6')!.score).to.equal(0.6);
      expect(parseJudgeVerdict('I rate it 3/10.')!.score).to.equal(0.3);
      expect(parseJudgeVerdict('Rating: 5 out of 10')!.score).to.equal(0.5);
    });

    it('answers null when there is no score in 0-10', () => {
      for (const text of ['I would rather not say', '{"score": 11}', 'Score: 42', '{"score": -1}', ''])
        expect(parseJudgeVerdict(text), text).to.equal(null);
    });
  });
});
