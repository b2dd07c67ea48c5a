import { expect } from 'chai';
import fc from 'fast-check';
import {
  acceptedAnswers,
  aggregateScores,
  canonicalNumber,
  choiceLetter,
  exactMatch,
  extractAnswer,
  goldLetter,
  normaliseAnswer,
  scoreResponse,
  standardError,
  standardErrorOfScores,
  stripReasoning,
  tokenF1,
  userRegexProblem,
} from '../../src/lib/quality-scoring.ts';

describe('quality scoring', () => {
  describe('SQuAD normalisation, exact match and token F1 (evaluate-v1.1.py)', () => {
    it('lower-cases, drops punctuation and articles, collapses whitespace', () => {
      expect(normaliseAnswer('The Quick, brown fox!')).to.equal('quick brown fox');
      expect(normaliseAnswer('  an apple\ta day  ')).to.equal('apple day');
      expect(normaliseAnswer('Theatre')).to.equal('theatre'); // "the" only as a whole word
    });

    it('scores exact match against any accepted answer', () => {
      expect(exactMatch('Denver Broncos.', 'denver broncos')).to.equal(1);
      expect(exactMatch('the Denver Broncos', ['Carolina Panthers', 'Denver Broncos'])).to.equal(1);
      expect(exactMatch('Broncos', 'Denver Broncos')).to.equal(0);
      expect(exactMatch('42', 42)).to.equal(1);
    });

    it('computes token F1 with counts, taking the best accepted answer', () => {
      // Prediction "the Broncos" -> [broncos], gold [denver, broncos]: precision 1, recall 1/2.
      expect(tokenF1('the Broncos', 'Denver Broncos')).to.be.closeTo(2 / 3, 1e-12);
      expect(tokenF1('Denver Broncos', ['Carolina Panthers', 'Denver Broncos'])).to.equal(1);
      expect(tokenF1('Santa Clara, California', "Levi's Stadium in the San Francisco Bay Area at Santa Clara, California")).to.be.closeTo((2 * 1 * (3 / 11)) / (1 + 3 / 11), 1e-12);
      expect(tokenF1('a a b', 'a b b')).to.be.closeTo(2 / 3, 1e-12); // articles dropped: "b" vs "b b", precision 1, recall 1/2
      expect(tokenF1('x x y', 'x y y')).to.be.closeTo(2 / 3, 1e-12); // counts respected: one x and one y in common
      expect(tokenF1('x y', 'z')).to.equal(0);
      expect(tokenF1('the', 'a')).to.equal(1); // both empty after normalisation
      expect(tokenF1('', 'answer')).to.equal(0);
    });

    it('applies the scoring overrides', () => {
      expect(exactMatch('Paris', 'paris', { ignoreCase: false })).to.equal(0);
      expect(exactMatch('Paris!', 'Paris', { ignorePunctuation: false })).to.equal(0);
      expect(exactMatch('Answer: Paris', 'Paris', { regexesToIgnore: ['^Answer:\\s*'] })).to.equal(1);
      expect(normaliseAnswer('12 km', { regexesToIgnore: ['\\s*km$'] })).to.equal('12');
    });

    it('reads gold values as accepted answers', () => {
      expect(acceptedAnswers(3)).to.deep.equal(['3']);
      expect(acceptedAnswers(['a', 2])).to.deep.equal(['a', '2']);
    });
  });

  describe('reasoning', () => {
    it('drops <think> blocks, text before a lone closing tag, and an unclosed block', () => {
      expect(stripReasoning('<think>hmm\nmaybe 5</think>\nThe answer is 4')).to.equal('The answer is 4');
      expect(stripReasoning('<THINK>a</THINK>B<think>c</think>D')).to.equal('BD');
      expect(stripReasoning('reasoning that the template opened</think> 12')).to.equal('12');
      expect(stripReasoning('Sure. <think>still thinking when the tokens ran out')).to.equal('Sure.');
      expect(stripReasoning('no reasoning')).to.equal('no reasoning');
    });
  });

  describe('answer extraction', () => {
    it('none: the whole text', () => {
      expect(extractAnswer('  Paris \n', 'none')).to.equal('Paris');
    });

    it('final_answer: the last stated answer, else the last line', () => {
      expect(extractAnswer('Steps...\nFinal answer: 42.', 'final_answer')).to.equal('42');
      expect(extractAnswer('The answer is 3. Wait, final answer: 5', 'final_answer')).to.equal('5');
      expect(extractAnswer('so #### 1,234', 'final_answer')).to.equal('1,234');
      expect(extractAnswer('We get \\boxed{\\frac{1}{2}} in the end', 'final_answer')).to.equal('\\frac{1}{2}');
      expect(extractAnswer('line one\nline two\n\n', 'final_answer')).to.equal('line two');
      expect(extractAnswer('', 'final_answer')).to.equal('');
    });

    it('last_number: the last number, canonical', () => {
      expect(extractAnswer('3 apples and 1,234.50 pears', 'last_number')).to.equal('1234.5');
      expect(extractAnswer('it drops to -3 degrees', 'last_number')).to.equal('-3');
      expect(extractAnswer('$18.00 in total', 'last_number')).to.equal('18');
      expect(extractAnswer('about .5 of it', 'last_number')).to.equal('0.5');
      expect(extractAnswer('no digits here', 'last_number')).to.equal('');
      expect(canonicalNumber('+007')).to.equal('007');
      expect(canonicalNumber('-0.0')).to.equal('0');
    });

    it('regex: the first group of the last match, or the whole match', () => {
      expect(extractAnswer('Answer: 4; revised Answer: 5', 'regex', 'Answer:\\s*(\\d+)')).to.equal('5');
      expect(extractAnswer('codes X12 and Y34', 'regex', '[XY]\\d+')).to.equal('Y34');
      expect(extractAnswer('nothing', 'regex', 'Answer:\\s*(\\d+)')).to.equal('');
    });

    it('runs author patterns in linear time: a catastrophic pattern for backtracking engines returns', () => {
      // (a+)+$ against many a's and a final '!' takes exponential time in JavaScript's own engine.
      expect(extractAnswer(`${'a'.repeat(50_000)}!`, 'regex', '(a+)+$')).to.equal('');
    });
  });

  describe('author patterns', () => {
    it('accepts RE2 syntax and refuses what RE2 does not support', () => {
      expect(userRegexProblem('Answer:\\s*([A-D])')).to.equal(null);
      expect(userRegexProblem('(a)\\1')).to.match(/Backreferences and lookaround are not supported/);
      expect(userRegexProblem('(?=x)y')).to.match(/Backreferences and lookaround are not supported/);
      expect(userRegexProblem('([unclosed')).to.match(/Not a valid regular expression/);
      expect(userRegexProblem('a'.repeat(501))).to.equal('Must be at most 500 characters');
    });
  });

  describe('multiple choice', () => {
    const choices = ['Green', 'Blue', 'Red', 'Yellow'];

    it('reads the letter a response picks', () => {
      expect(choiceLetter('B', choices)).to.equal('B');
      expect(choiceLetter('(c)', choices)).to.equal('C');
      expect(choiceLetter('D. Yellow', choices)).to.equal('D');
      expect(choiceLetter('A) Green', choices)).to.equal('A');
      expect(choiceLetter('I think A, but the answer is (B)', choices)).to.equal('B');
      expect(choiceLetter('Answer: C', choices)).to.equal('C');
      expect(choiceLetter('blue', choices)).to.equal('B');
      expect(choiceLetter('E', choices)).to.equal(null); // out of range
      expect(choiceLetter('A cat sat here', choices)).to.equal(null); // a word, not a pick
    });

    it('reads the gold letter from an index, a letter or the text', () => {
      expect(goldLetter(0, choices)).to.equal('A');
      expect(goldLetter('c', choices)).to.equal('C');
      expect(goldLetter('Yellow', choices)).to.equal('D');
      expect(goldLetter(['Purple', 'Blue'], choices)).to.equal('B');
      expect(goldLetter(4, choices)).to.equal(null);
      expect(goldLetter('Purple', choices)).to.equal(null);
    });
  });

  describe('scoreResponse', () => {
    it('scores multiple choice by letter under either method', () => {
      const item = { gold: 'B', choices: ['Green', 'Blue'] };
      for (const method of ['exact_match', 'f1'] as const) {
        expect(scoreResponse({ method, taskType: 'multiple_choice' }, item, '<think>A?</think>The answer is (B)')).to.deep.equal({ score: 1, extracted: 'B' });
        expect(scoreResponse({ method, taskType: 'multiple_choice' }, item, 'A').score).to.equal(0);
      }
    });

    it('compares last numbers with numeric golds in canonical form', () => {
      const rule = { method: 'exact_match', taskType: 'qa', answerExtraction: 'last_number' } as const;
      expect(scoreResponse(rule, { gold: 18 }, 'The total is $18.00.')).to.deep.equal({ score: 1, extracted: '18' });
      expect(scoreResponse(rule, { gold: '1,234' }, 'it is 1234')).to.deep.equal({ score: 1, extracted: '1234' });
      expect(scoreResponse(rule, { gold: 18 }, 'The total is 19').score).to.equal(0);
    });

    it('scores QA text by exact match or F1 after extraction', () => {
      expect(scoreResponse({ method: 'exact_match', taskType: 'qa', answerExtraction: 'final_answer' }, { gold: 'Denver Broncos' }, 'Final answer: the Denver Broncos').score).to.equal(1);
      expect(scoreResponse({ method: 'f1', taskType: 'qa', answerExtraction: 'final_answer' }, { gold: 'Denver Broncos' }, 'Final answer: Broncos').score).to.be.closeTo(2 / 3, 1e-12);
    });
  });

  describe('aggregation and standard errors', () => {
    const tasks = [
      { score: 0.9, weight: 3 },
      { score: 0.5, weight: 1 },
      { score: 0.2, weight: 1 },
    ];

    it('aggregates by weighted mean, mean, min and max', () => {
      expect(aggregateScores(tasks, 'weighted_mean')).to.be.closeTo((2.7 + 0.5 + 0.2) / 5, 1e-12);
      expect(aggregateScores(tasks, 'mean')).to.be.closeTo(1.6 / 3, 1e-12);
      expect(aggregateScores(tasks, 'min')).to.equal(0.2);
      expect(aggregateScores(tasks, 'max')).to.equal(0.9);
      expect(() => aggregateScores([], 'mean')).to.throw(RangeError);
    });

    it('gives the binomial standard error where n is known, and the sample one from item scores', () => {
      expect(standardError(0.5, 100)).to.be.closeTo(0.05, 1e-12);
      expect(standardError(0.5, null)).to.equal(null);
      expect(standardError(0.5, 0)).to.equal(null);
      expect(standardErrorOfScores([1, 0, 1, 0])).to.be.closeTo(Math.sqrt(1 / 3 / 4), 1e-12);
      expect(standardErrorOfScores([1])).to.equal(null);
    });
  });

  describe('properties', () => {
    it('F1 is in [0, 1], and 1 for an answer against itself', () => {
      fc.assert(
        fc.property(fc.string({ maxLength: 60 }), fc.string({ maxLength: 60 }), (prediction, gold) => {
          const f1 = tokenF1(prediction, gold);
          expect(f1).to.be.within(0, 1);
          expect(tokenF1(gold, gold)).to.equal(1);
          expect(exactMatch(gold, gold)).to.equal(1);
          // Exact match implies a perfect F1.
          if (exactMatch(prediction, gold) === 1) expect(f1).to.equal(1);
        }),
      );
    });

    it('the aggregate lies between the smallest and largest task score', () => {
      fc.assert(
        fc.property(fc.array(fc.record({ score: fc.double({ min: 0, max: 1, noNaN: true }), weight: fc.double({ min: 0.01, max: 100, noNaN: true }) }), { minLength: 1, maxLength: 20 }), (list) => {
          const scores = list.map((task) => task.score);
          for (const mode of ['weighted_mean', 'mean'] as const) {
            const value = aggregateScores(list, mode);
            expect(value).to.be.at.least(Math.min(...scores) - 1e-12);
            expect(value).to.be.at.most(Math.max(...scores) + 1e-12);
          }
        }),
      );
    });
  });
});
