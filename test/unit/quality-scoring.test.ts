import { expect } from 'chai';
import fc from 'fast-check';
import {
  MAX_SCORED_CHARS,
  MAX_USER_REGEX_LENGTH,
  acceptedAnswers,
  aggregateScores,
  canonicalNumber,
  capResponse,
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
  type ItemScoringRule,
} from '../../src/lib/quality-scoring.ts';

const CAPITALS = ['Paris', 'London', 'Berlin', 'Rome'];

describe('quality scoring', () => {
  describe('stripReasoning', () => {
    it('removes a closed block, across lines, and trims', () => {
      expect(stripReasoning('<think>\nStep 1...\nStep 2\n</think>\n\nParis\n')).to.equal('Paris');
    });

    it('removes every block, in any case', () => {
      expect(stripReasoning('a <think>1</think>b <THINK>2</Think>c')).to.equal('a b c');
    });

    it('keeps only what follows the last </think> when the opening tag was in the prompt', () => {
      expect(stripReasoning('I should add them.\n</think>\n42')).to.equal('42');
      expect(stripReasoning('first</think>second</think> third')).to.equal('third');
      // A block closed properly, then a stray closing tag: everything before the stray tag goes.
      expect(stripReasoning('<think>a</think>b</think>c')).to.equal('c');
      // A stray closing tag, then a proper block later: both are reasoning.
      expect(stripReasoning('r</think>A <think>r2</think>B')).to.equal('A B');
    });

    it('drops everything after an unclosed <think>', () => {
      expect(stripReasoning('Paris <think>but wait, maybe')).to.equal('Paris');
      expect(stripReasoning('<think>never finished')).to.equal('');
    });

    it('treats an opening tag inside a block as reasoning', () => {
      expect(stripReasoning('<think>a <think> b</think>answer')).to.equal('answer');
    });

    it('leaves a response without tags alone apart from trimming', () => {
      expect(stripReasoning('  plain answer \n')).to.equal('plain answer');
      expect(stripReasoning('<thinking>not our tag</thinking>')).to.equal('<thinking>not our tag</thinking>');
    });
  });

  describe('capResponse', () => {
    it('keeps the first MAX_SCORED_CHARS characters', () => {
      expect(MAX_SCORED_CHARS).to.equal(100_000);
      expect(capResponse('x'.repeat(MAX_SCORED_CHARS + 5))).to.have.length(MAX_SCORED_CHARS);
      expect(capResponse('short')).to.equal('short');
    });

    it('never ends inside a surrogate pair', () => {
      const text = `${'x'.repeat(MAX_SCORED_CHARS - 1)}😀tail`;
      const capped = capResponse(text);
      expect(capped).to.have.length(MAX_SCORED_CHARS - 1);
      expect(capped.isWellFormed()).to.equal(true);
    });
  });

  describe('userRegexProblem', () => {
    it('accepts RE2 patterns, with inline flags and named groups', () => {
      for (const pattern of ['\\d+', '(?i)answer\\s*:\\s*\\(?([A-J])\\)?', '(?P<n>\\d+)', '(?<n>\\d+)', '[[:alpha:]]+', '\\pL', '']) {
        expect(userRegexProblem(pattern), pattern).to.equal(null);
      }
    });

    it('refuses invalid syntax with the reason', () => {
      expect(userRegexProblem('(')).to.equal('Not a valid regular expression: missing closing ): `(`');
      expect(userRegexProblem('[z-a]')).to.match(/^Not a valid regular expression: invalid character class range/);
      expect(userRegexProblem('a**')).to.match(/^Not a valid regular expression: /);
    });

    it('names backreferences and lookaround', () => {
      for (const pattern of ['(a)\\1', '(?P<x>a)\\k<x>', '(?=x)', 'a(?!b)', '(?<=a)b', '(?<!a)b']) {
        expect(userRegexProblem(pattern), pattern).to.equal('Backreferences and lookaround are not supported');
      }
      // Not lookaround or a backreference: a class, a quoted literal, an octal escape.
      expect(userRegexProblem('[(?=]')).to.equal(null);
      expect(userRegexProblem('\\Q(?=x)\\E')).to.equal(null);
      expect(userRegexProblem('\\101')).to.equal(null);
    });

    it('refuses patterns longer than 500 characters', () => {
      expect(MAX_USER_REGEX_LENGTH).to.equal(500);
      const longest = '[0-9]'.repeat(100);
      expect(longest).to.have.length(500);
      expect(userRegexProblem(longest)).to.equal(null);
      expect(userRegexProblem(`${longest}x`)).to.equal('Must be at most 500 characters');
    });

    it('refuses patterns that compile to too many instructions', () => {
      expect(userRegexProblem('(.{0,1000}x)')).to.match(/^Too complex: compiles to \d+ RE2 instructions, at most 200 are allowed$/);
      // A realistic long answer pattern stays well inside the limit.
      const realistic =
        '(?i)\\b(?:therefore|thus|hence|so),?\\s+(?:the\\s+)?(?:final\\s+)?answer\\s+(?:is|would be|will be)\\s*[:：]?\\s*\\**\\(?([A-Z])\\)?\\**';
      expect(userRegexProblem(realistic)).to.equal(null);
    });
  });

  describe('extractAnswer', () => {
    it('none: the whole text, trimmed', () => {
      expect(extractAnswer('  Paris \n', 'none')).to.equal('Paris');
    });

    describe('final_answer', () => {
      it('reads each answer form', () => {
        expect(extractAnswer('so \\boxed{42} it is', 'final_answer')).to.equal('42');
        expect(extractAnswer('Natalia sold 48/2 = 24 clips.\n#### 72', 'final_answer')).to.equal('72');
        expect(extractAnswer('Final answer: 12', 'final_answer')).to.equal('12');
        expect(extractAnswer('The final answer is 12.', 'final_answer')).to.equal('12');
        expect(extractAnswer('Thinking...\nThe answer is Paris.\n', 'final_answer')).to.equal('Paris');
        expect(extractAnswer('ANSWER: Rome', 'final_answer')).to.equal('Rome');
      });

      it('takes X up to the end of the line, with one trailing period trimmed', () => {
        expect(extractAnswer('Answer: 3.14.\nExplanation: pi', 'final_answer')).to.equal('3.14');
        expect(extractAnswer('Answer: New York City\r\nmore', 'final_answer')).to.equal('New York City');
      });

      it('takes the last statement of all', () => {
        expect(extractAnswer('Answer: 1\nWait, no. The answer is 2.\n', 'final_answer')).to.equal('2');
        expect(extractAnswer('Answer: 3 then answer: 4', 'final_answer')).to.equal('4');
        expect(extractAnswer('\\boxed{5}\nFinal answer: 6', 'final_answer')).to.equal('6');
        expect(extractAnswer('Final answer: \\boxed{7}', 'final_answer')).to.equal('7');
      });

      it('reads \\boxed with nested and escaped braces', () => {
        expect(extractAnswer('$\\boxed{\\frac{1}{2}}$', 'final_answer')).to.equal('\\frac{1}{2}');
        expect(extractAnswer('\\boxed{\\{1, 2\\}}', 'final_answer')).to.equal('\\{1, 2\\}');
        expect(extractAnswer('\\boxed{\\boxed{9}}', 'final_answer')).to.equal('9');
        // Unbalanced: not a statement, so the last line.
        expect(extractAnswer('\\boxed{oops', 'final_answer')).to.equal('\\boxed{oops');
      });

      it('strips markdown emphasis and a colon around X', () => {
        expect(extractAnswer('**Final Answer:** Paris.', 'final_answer')).to.equal('Paris');
        expect(extractAnswer('**Answer**: **B**', 'final_answer')).to.equal('B');
        expect(extractAnswer('The answer is: 12', 'final_answer')).to.equal('12');
      });

      it('takes the next non-empty line when a marker ends its line', () => {
        expect(extractAnswer('Final answer:\n\n42\n', 'final_answer')).to.equal('42');
      });

      it('falls back to the last non-empty line', () => {
        expect(extractAnswer('Let me see.\nIt is Paris  \n\n  ', 'final_answer')).to.equal('It is Paris');
        expect(extractAnswer('', 'final_answer')).to.equal('');
      });
    });

    describe('last_number', () => {
      it('returns the last number in canonical form', () => {
        expect(extractAnswer('The total is $18.00.', 'last_number')).to.equal('18');
        expect(extractAnswer('costs 1,234.50 dollars', 'last_number')).to.equal('1234.5');
        expect(extractAnswer('18.50', 'last_number')).to.equal('18.5');
        expect(extractAnswer('the change is -3', 'last_number')).to.equal('-3');
        expect(extractAnswer('+7 and then +007.500', 'last_number')).to.equal('7.5');
        // U+2212, the minus sign proper.
        expect(extractAnswer('x = −3', 'last_number')).to.equal('-3');
        expect(extractAnswer('-0.0', 'last_number')).to.equal('0');
        expect(extractAnswer('about .5 of it', 'last_number')).to.equal('0.5');
        expect(extractAnswer('1,234,567', 'last_number')).to.equal('1234567');
      });

      it('takes the last of several and returns "" when there is none', () => {
        expect(extractAnswer('3 apples, 4 pears, 5 plums', 'last_number')).to.equal('5');
        expect(extractAnswer('no digits here', 'last_number')).to.equal('');
      });

      it('reads a hyphen after a word or number as a hyphen, not a sign', () => {
        expect(extractAnswer('from 1990-2000', 'last_number')).to.equal('2000');
        expect(extractAnswer('GPT-4', 'last_number')).to.equal('4');
      });

      it('does not read malformed separators or dotted versions as one number', () => {
        expect(extractAnswer('1,2345', 'last_number')).to.equal('2345');
        expect(extractAnswer('version 1.2.3', 'last_number')).to.equal('1.2');
      });
    });

    describe('regex', () => {
      it('returns the first group of the last match', () => {
        expect(extractAnswer('A: 1, A: 2, A: 3', 'regex', 'A: (\\d)')).to.equal('3');
        expect(extractAnswer('Option (c) then option (D)', 'regex', '(?i)option \\(([a-d])\\)')).to.equal('D');
      });

      it('returns the whole match when the pattern has no group', () => {
        expect(extractAnswer('A: 1, A: 2', 'regex', 'A: \\d')).to.equal('A: 2');
      });

      it('returns "" on no match or a group that did not take part', () => {
        expect(extractAnswer('nothing', 'regex', 'A: (\\d)')).to.equal('');
        expect(extractAnswer('x', 'regex', '(\\d)?x')).to.equal('');
      });

      it('throws for a missing or refused pattern', () => {
        expect(() => extractAnswer('x', 'regex')).to.throw(RangeError);
        expect(() => extractAnswer('x', 'regex', '(a)\\1')).to.throw(RangeError, /Backreferences and lookaround are not supported/);
      });
    });
  });

  describe('canonicalNumber', () => {
    it('canonicalises a whole number and refuses anything else', () => {
      expect(canonicalNumber('18')).to.equal('18');
      expect(canonicalNumber(' 1,234.500 ')).to.equal('1234.5');
      expect(canonicalNumber('+0018.0')).to.equal('18');
      expect(canonicalNumber('-0')).to.equal('0');
      expect(canonicalNumber('123456789012345678901234567890')).to.equal('123456789012345678901234567890');
      for (const text of ['', '18 apples', '$18', '1e5', '1,23', '--1']) expect(canonicalNumber(text), text).to.equal(null);
    });
  });

  describe('normaliseAnswer', () => {
    it('follows SQuAD v1.1: lower case, no punctuation, no articles, single spaces', () => {
      expect(normaliseAnswer('The Quick, brown fox!')).to.equal('quick brown fox');
      expect(normaliseAnswer('  An apple\ta day\n')).to.equal('apple day');
      // Punctuation goes before articles, so a hyphen joins words instead of splitting them.
      expect(normaliseAnswer('the-end')).to.equal('theend');
      expect(normaliseAnswer("Levi's Stadium")).to.equal('levis stadium');
    });

    it("uses Python's punctuation and whitespace sets and Unicode word boundaries", () => {
      // Curly quotes are not in string.punctuation.
      expect(normaliseAnswer('“Paris”')).to.equal('“paris”');
      // str.split() splits on \x1c and \x85 but not on U+FEFF.
      expect(normaliseAnswer('a\x1cb\x85c\ufeffd')).to.equal('b c\ufeffd');
      // Python 3's \b knows é is a letter, so "the" inside "éthe" is not a word.
      expect(normaliseAnswer('éthe the')).to.equal('éthe');
    });

    it('keeps case with ignoreCase: false, articles still removed in any case', () => {
      expect(normaliseAnswer('The Beatles', { ignoreCase: false })).to.equal('Beatles');
      expect(normaliseAnswer('Paris', { ignoreCase: false })).to.equal('Paris');
    });

    it('keeps punctuation with ignorePunctuation: false', () => {
      expect(normaliseAnswer('3.14, roughly!', { ignorePunctuation: false })).to.equal('3.14, roughly!');
    });

    it('removes regexesToIgnore matches first', () => {
      expect(normaliseAnswer('Answer: Paris', { regexesToIgnore: ['^Answer: '] })).to.equal('paris');
      expect(normaliseAnswer('1,000 km', { regexesToIgnore: [',', '\\s*km$'] })).to.equal('1000');
      // Removed before lower-casing, so a case-sensitive pattern sees the original case.
      expect(normaliseAnswer('Units: KM', { regexesToIgnore: ['KM'] })).to.equal('units');
    });
  });

  describe('acceptedAnswers', () => {
    it('turns any gold into strings', () => {
      expect(acceptedAnswers('Paris')).to.deep.equal(['Paris']);
      expect(acceptedAnswers(18.5)).to.deep.equal(['18.5']);
      expect(acceptedAnswers(['Denver Broncos', 24])).to.deep.equal(['Denver Broncos', '24']);
      expect(acceptedAnswers([])).to.deep.equal([]);
    });
  });

  describe('exactMatch', () => {
    it('compares normalised text against every accepted answer', () => {
      expect(exactMatch('Denver Broncos.', 'denver broncos')).to.equal(1);
      expect(exactMatch('the Broncos', 'Denver Broncos')).to.equal(0);
      expect(exactMatch('Carolina Panthers', ['Denver Broncos', 'Carolina Panthers'])).to.equal(1);
      expect(exactMatch('24', 24)).to.equal(1);
      expect(exactMatch('anything', [])).to.equal(0);
    });

    it('distinguishes case with ignoreCase: false', () => {
      expect(exactMatch('Denver Broncos', 'denver broncos', { ignoreCase: false })).to.equal(0);
      expect(exactMatch('Denver Broncos', 'Denver Broncos', { ignoreCase: false })).to.equal(1);
    });

    it('distinguishes punctuation with ignorePunctuation: false', () => {
      expect(exactMatch('3.5', '35', { ignorePunctuation: false })).to.equal(0);
      expect(exactMatch('3.5', '35')).to.equal(1);
    });

    it('ignores regexesToIgnore matches on both sides', () => {
      expect(exactMatch('Answer: Paris', 'Paris')).to.equal(0);
      expect(exactMatch('Answer: Paris', 'Paris', { regexesToIgnore: ['(?i)^answer:'] })).to.equal(1);
    });
  });

  describe('tokenF1', () => {
    it('reproduces SQuAD F1 values', () => {
      expect(tokenF1('the Broncos', 'Denver Broncos')).to.be.closeTo(2 / 3, 1e-12);
      expect(tokenF1('Denver Broncos', ['Carolina Panthers', 'Denver Broncos'])).to.equal(1);
      // precision 2/3, recall 1 -> 0.8
      expect(tokenF1('Denver Broncos won', 'Denver Broncos')).to.be.closeTo(0.8, 1e-12);
      expect(tokenF1('Carolina', 'Denver Broncos')).to.equal(0);
    });

    it('counts repeated tokens only as often as both sides have them', () => {
      // common 1, precision 1/3, recall 1 -> 0.5
      expect(tokenF1('cat cat cat', 'cat')).to.equal(0.5);
      // common 2, precision 1, recall 2/3 -> 0.8
      expect(tokenF1('cat cat', 'cat cat dog')).to.be.closeTo(0.8, 1e-12);
    });

    it('gives 1 when both normalise to nothing and 0 when only one does (SQuAD v2)', () => {
      expect(tokenF1('The', 'a!')).to.equal(1);
      expect(tokenF1('', 'Paris')).to.equal(0);
      expect(tokenF1('Paris', 'the')).to.equal(0);
      expect(tokenF1('Paris', [])).to.equal(0);
    });
  });

  describe('choiceLetter', () => {
    it('recognises each letter form', () => {
      const forms: [string, string][] = [
        ['B', 'B'],
        ['b', 'B'],
        ['(B)', 'B'],
        ['B.', 'B'],
        ['B)', 'B'],
        ['B:', 'B'],
        ['**C**', 'C'],
        ['Answer: B', 'B'],
        ['answer: (d)', 'D'],
        ['The answer is (B).', 'B'],
        ['The correct answer is option C because it is the capital.', 'C'],
        ['Final answer: $\\boxed{D}$', 'D'],
        ['B) London', 'B'],
        ['(B) London', 'B'],
        ['C\n\nBerlin is the capital of Germany.', 'C'],
      ];
      for (const [response, letter] of forms) expect(choiceLetter(response, CAPITALS), response).to.equal(letter);
    });

    it("recognises a response equal to one choice's text", () => {
      expect(choiceLetter('london', CAPITALS)).to.equal('B');
      expect(choiceLetter('Rome.', CAPITALS)).to.equal('D');
      expect(choiceLetter('The answer is Berlin.', CAPITALS)).to.equal('C');
    });

    it('prefers the last explicit answer statement', () => {
      expect(choiceLetter('A looks right at first. Final answer: D', CAPITALS)).to.equal('D');
      expect(choiceLetter('Answer: A\nOn reflection, the answer is (C).', CAPITALS)).to.equal('C');
      // A last statement that names nothing defers to the one before.
      expect(choiceLetter('Answer: B\nThe answer is unclear to some.', CAPITALS)).to.equal('B');
    });

    it('refuses letters outside the choices', () => {
      expect(choiceLetter('E', CAPITALS)).to.equal(null);
      expect(choiceLetter('Answer: E', CAPITALS)).to.equal(null);
      expect(choiceLetter('(e)', CAPITALS)).to.equal(null);
      expect(choiceLetter('C', ['yes', 'no'])).to.equal(null);
    });

    it('does not read words as letters', () => {
      expect(choiceLetter('answer: a dog', CAPITALS)).to.equal(null);
      expect(choiceLetter('A good question, hard to say', CAPITALS)).to.equal(null);
      expect(choiceLetter('I think so', ['1', '2', '3', '4', '5', '6', '7', '8', '9'])).to.equal(null);
      expect(choiceLetter('', CAPITALS)).to.equal(null);
    });
  });

  describe('goldLetter', () => {
    it('reads an index, a letter, a choice text, or the first of a list that resolves', () => {
      expect(goldLetter(0, CAPITALS)).to.equal('A');
      expect(goldLetter(3, CAPITALS)).to.equal('D');
      expect(goldLetter('C', CAPITALS)).to.equal('C');
      expect(goldLetter('c', CAPITALS)).to.equal('C');
      expect(goldLetter('rome', CAPITALS)).to.equal('D');
      expect(goldLetter(['Madrid', 'Berlin'], CAPITALS)).to.equal('C');
      // A string of digits is text, not an index.
      expect(goldLetter('2', ['1', '2', '3'])).to.equal('B');
    });

    it('returns null when nothing resolves', () => {
      expect(goldLetter(4, CAPITALS)).to.equal(null);
      expect(goldLetter(-1, CAPITALS)).to.equal(null);
      expect(goldLetter(1.5, CAPITALS)).to.equal(null);
      expect(goldLetter('E', CAPITALS)).to.equal(null);
      expect(goldLetter('Madrid', CAPITALS)).to.equal(null);
      expect(goldLetter([], CAPITALS)).to.equal(null);
    });
  });

  describe('scoreResponse', () => {
    const mc = (fields: Partial<ItemScoringRule> = {}): ItemScoringRule => ({
      method: 'exact_match',
      taskType: 'multiple_choice',
      ...fields,
    });
    const qa = (fields: Partial<ItemScoringRule> = {}): ItemScoringRule => ({ method: 'exact_match', taskType: 'qa', ...fields });

    it('multiple choice: 1 when both sides reduce to the same letter, with either method', () => {
      const item = { gold: 1, choices: CAPITALS };
      for (const method of ['exact_match', 'f1'] as const) {
        expect(scoreResponse(mc({ method }), item, '<think>A? no.</think>The answer is (B).')).to.deep.equal({ score: 1, extracted: 'B' });
        expect(scoreResponse(mc({ method }), item, 'London')).to.deep.equal({ score: 1, extracted: 'B' });
        expect(scoreResponse(mc({ method }), item, 'C')).to.deep.equal({ score: 0, extracted: 'C' });
        expect(scoreResponse(mc({ method }), item, 'no idea')).to.deep.equal({ score: 0, extracted: '' });
      }
      expect(scoreResponse(mc(), { gold: 'London', choices: CAPITALS }, 'B').score).to.equal(1);
    });

    it('multiple choice: runs the extraction first', () => {
      const rule = mc({ answerExtraction: 'regex', answerRegex: 'choice=([A-Z])' });
      expect(scoreResponse(rule, { gold: 'D', choices: CAPITALS }, 'A is tempting; choice=D')).to.deep.equal({ score: 1, extracted: 'D' });
    });

    it('multiple choice: throws for an item without choices', () => {
      expect(() => scoreResponse(mc(), { gold: 0 }, 'A')).to.throw(RangeError);
    });

    it('qa: extracts, then exact match or token F1', () => {
      const item = { gold: ['Denver Broncos', 'Broncos'] };
      expect(
        scoreResponse(qa({ answerExtraction: 'final_answer' }), item, 'Reasoning...\nFinal answer: the Denver Broncos.'),
      ).to.deep.equal({
        score: 1,
        extracted: 'the Denver Broncos',
      });
      expect(scoreResponse(qa(), { gold: 'Denver Broncos' }, 'the Broncos').score).to.equal(0);
      expect(scoreResponse(qa({ method: 'f1' }), { gold: 'Denver Broncos' }, 'the Broncos').score).to.be.closeTo(2 / 3, 1e-12);
      expect(scoreResponse(qa({ scoring: { ignoreCase: false } }), { gold: 'paris' }, 'Paris').score).to.equal(0);
    });

    it('last_number: compares numeric gold answers in canonical form', () => {
      expect(scoreResponse(qa({ answerExtraction: 'last_number' }), { gold: '18' }, 'The total is $18.00.')).to.deep.equal({
        score: 1,
        extracted: '18',
      });
      expect(scoreResponse(qa({ answerExtraction: 'last_number' }), { gold: 1234.5 }, '#### 1,234.50').score).to.equal(1);
      expect(scoreResponse(qa({ method: 'f1', answerExtraction: 'last_number' }), { gold: '18' }, 'It is 18.5').score).to.equal(0);
      // Normalisation would drop the sign and the point; the canonical comparison does not.
      expect(scoreResponse(qa({ answerExtraction: 'last_number' }), { gold: '-18' }, 'It is 18').score).to.equal(0);
      expect(scoreResponse(qa({ answerExtraction: 'last_number' }), { gold: '1.85' }, 'It is 185').score).to.equal(0);
      // A gold that is not a number is compared as text with the method.
      expect(scoreResponse(qa({ method: 'f1', answerExtraction: 'last_number' }), { gold: '18 apples' }, '18').score).to.be.closeTo(
        2 / 3,
        1e-12,
      );
    });

    it('scores a judge task like qa', () => {
      expect(scoreResponse({ method: 'exact_match', taskType: 'judge' }, { gold: 'Paris' }, 'paris').score).to.equal(1);
    });

    it('scores only the first MAX_SCORED_CHARS characters after stripping reasoning', () => {
      const rule = qa({ answerExtraction: 'last_number' });
      const reasoning = `<think>${'7 '.repeat(MAX_SCORED_CHARS)}</think>`;
      expect(scoreResponse(rule, { gold: 42 }, `${reasoning}The answer is 42`).score).to.equal(1);
      const padding = 'x'.repeat(MAX_SCORED_CHARS);
      expect(scoreResponse(rule, { gold: 42 }, `${padding} 42`)).to.deep.equal({ score: 0, extracted: '' });
    });
  });

  describe('aggregateScores', () => {
    const tasks = [
      { score: 0.9, weight: 3 },
      { score: 0.5, weight: 1 },
      { score: 0.2, weight: 0 },
    ];

    it('computes each mode', () => {
      expect(aggregateScores(tasks, 'weighted_mean')).to.be.closeTo((0.9 * 3 + 0.5) / 4, 1e-12);
      expect(aggregateScores(tasks, 'mean')).to.be.closeTo(1.6 / 3, 1e-12);
      expect(aggregateScores(tasks, 'min')).to.equal(0.2);
      expect(aggregateScores(tasks, 'max')).to.equal(0.9);
    });

    it('stays a fraction when every score is the same', () => {
      const ones = Array.from({ length: 7 }, (_, i) => ({ score: 1, weight: 0.1 * (i + 1) }));
      expect(aggregateScores(ones, 'weighted_mean')).to.equal(1);
      expect(aggregateScores(ones, 'mean')).to.equal(1);
    });

    it('throws on an empty list, weights summing to 0, and out-of-range input', () => {
      expect(() => aggregateScores([], 'mean')).to.throw(RangeError);
      expect(() => aggregateScores([{ score: 0.5, weight: 0 }], 'weighted_mean')).to.throw(RangeError);
      expect(aggregateScores([{ score: 0.5, weight: 0 }], 'mean')).to.equal(0.5);
      expect(() => aggregateScores([{ score: 1.5, weight: 1 }], 'max')).to.throw(RangeError);
      expect(() => aggregateScores([{ score: Number.NaN, weight: 1 }], 'mean')).to.throw(RangeError);
      expect(() => aggregateScores([{ score: 0.5, weight: -1 }], 'mean')).to.throw(RangeError);
    });
  });

  describe('standard errors', () => {
    it('standardError is sqrt(s(1-s)/n)', () => {
      expect(standardError(0.5, 100)).to.be.closeTo(0.05, 1e-12);
      expect(standardError(0.9, 100)).to.be.closeTo(0.03, 1e-12);
      expect(standardError(0.8, 1319)).to.be.closeTo(Math.sqrt(0.16 / 1319), 1e-15);
      expect(standardError(1, 50)).to.equal(0);
    });

    it('standardError is null without a positive integer sample count', () => {
      for (const n of [0, -5, 1.5, Number.NaN, null, undefined]) expect(standardError(0.5, n), String(n)).to.equal(null);
      expect(() => standardError(2, 10)).to.throw(RangeError);
    });

    it('standardErrorOfScores is the sample standard deviation over sqrt(n)', () => {
      // mean 0.5, squared deviations 4 x 0.25 = 1, sample variance 1/3, sd / sqrt(4)
      expect(standardErrorOfScores([1, 0, 1, 0])).to.be.closeTo(Math.sqrt(1 / 3) / 2, 1e-12);
      expect(standardErrorOfScores([0.2, 0.4, 0.9])).to.be.closeTo(0.2081665999, 1e-9);
      expect(standardErrorOfScores([0.7, 0.7, 0.7])).to.equal(0);
    });

    it('standardErrorOfScores is null for fewer than two scores', () => {
      expect(standardErrorOfScores([])).to.equal(null);
      expect(standardErrorOfScores([1])).to.equal(null);
    });
  });

  describe('properties', () => {
    // Text rich in what matters: articles, case, punctuation, several kinds of whitespace.
    const word = fc.constantFrom('a', 'an', 'the', 'The', 'Denver', 'broncos', 'Broncos!', 'cat', "cat's", 'x-y', '1.5', 'é', 'Σ', '');
    const separator = fc.constantFrom(' ', '  ', '\n', '\t', ', ', '\u00a0', '\x1c');
    const answerText = fc.oneof(
      fc.array(fc.tuple(word, separator), { maxLength: 8 }).map((parts) => parts.map(([w, s]) => w + s).join('')),
      fc.string({ maxLength: 30 }),
    );
    const golds = fc.oneof(answerText, fc.array(answerText, { maxLength: 3 }));

    it('tokenF1 is a fraction', () => {
      fc.assert(
        fc.property(answerText, golds, (prediction, gold) => {
          const f1 = tokenF1(prediction, gold);
          expect(f1).to.be.within(0, 1);
        }),
        { numRuns: 1000 },
      );
    });

    it('a text matches itself: exactMatch 1 and tokenF1 1', () => {
      fc.assert(
        fc.property(answerText, (text) => {
          expect(exactMatch(text, text)).to.equal(1);
          expect(tokenF1(text, text)).to.equal(1);
        }),
        { numRuns: 1000 },
      );
    });

    it('tokenF1 is symmetric for one answer, and an exact match has F1 1', () => {
      fc.assert(
        fc.property(answerText, answerText, (a, b) => {
          expect(tokenF1(a, b)).to.equal(tokenF1(b, a));
          if (exactMatch(a, b) === 1) expect(tokenF1(a, b)).to.equal(1);
        }),
        { numRuns: 1000 },
      );
    });

    it('normaliseAnswer is idempotent and leaves single-spaced text', () => {
      fc.assert(
        fc.property(answerText, (text) => {
          const once = normaliseAnswer(text);
          expect(normaliseAnswer(once)).to.equal(once);
          expect(once).to.not.match(/^ | $| {2}/);
        }),
        { numRuns: 1000 },
      );
    });

    it('last_number returns a written number in canonical form, separators or not', () => {
      const written = fc
        .record({
          negative: fc.boolean(),
          integer: fc.bigInt({ min: 0n, max: 10n ** 15n }),
          decimals: fc.option(fc.stringMatching(/^\d{1,4}$/), { nil: undefined }),
          separators: fc.boolean(),
        })
        .map(({ negative, integer, decimals, separators }) => {
          const digits = separators ? integer.toLocaleString('en-US') : integer.toString();
          return `${negative ? '-' : ''}${digits}${decimals === undefined ? '' : `.${decimals}`}`;
        });
      fc.assert(
        fc.property(
          written,
          fc.constantFrom('', 'The result is ', 'so x = '),
          fc.constantFrom('', '.', ' units.'),
          (number, before, after) => {
            const extracted = extractAnswer(`${before}${number}${after}`, 'last_number');
            expect(extracted).to.equal(canonicalNumber(number));
            expect(extracted).to.match(/^-?(0|[1-9]\d*)(\.\d*[1-9])?$/);
          },
        ),
        { numRuns: 1000 },
      );
    });

    it('choiceLetter gives null or a letter within the choices', () => {
      const response = fc.oneof(
        fc.string({ maxLength: 40 }),
        fc
          .tuple(
            fc.constantFrom('Answer: ', 'The answer is ', '(', ''),
            fc.constantFrom('A', 'B', 'e', 'Z', 'Paris', 'rome'),
            fc.constantFrom('', ')', '.', ' because'),
          )
          .map((p) => p.join('')),
      );
      fc.assert(
        fc.property(
          response,
          fc.array(fc.constantFrom('Paris', 'London', 'Berlin', 'Rome', 'A', 'yes'), { minLength: 1, maxLength: 6 }),
          (text, choices) => {
            const letter = choiceLetter(text, choices);
            if (letter !== null) expect('ABCDEFGHIJKLMNOPQRSTUVWXYZ'.slice(0, choices.length)).to.include(letter);
          },
        ),
        { numRuns: 1000 },
      );
    });

    it('stripReasoning removes a think block and keeps what surrounds it', () => {
      const plain = fc.string({ maxLength: 20 }).filter((text) => !text.includes('<'));
      fc.assert(
        fc.property(plain, plain, plain, (before, reasoning, after) => {
          expect(stripReasoning(`${before}<think>${reasoning}</think>${after}`)).to.equal(`${before}${after}`.trim());
        }),
        { numRuns: 500 },
      );
    });

    it('built-in extraction returns on hostile responses of MAX_SCORED_CHARS characters', () => {
      // Each of these was quadratic in some first draft (a scan per marker or per \boxed).
      const n = MAX_SCORED_CHARS;
      const rule: ItemScoringRule = { method: 'f1', taskType: 'qa', answerExtraction: 'final_answer' };
      // [response, its final answer]: statements with nothing after them fall back to the line.
      const cases: [string, string][] = [
        ['answer:'.repeat(n / 7), 'answer:'.repeat(n / 7)],
        ['#'.repeat(n), '#'.repeat(n)],
        ['the answer is '.repeat(n / 14), 'the'],
        ['\\boxed{'.repeat(n / 7), '\\boxed{'.repeat(n / 7)],
        [`answer${'*'.repeat(n - 7)}x`, `answer${'*'.repeat(n - 7)}x`],
        ['<think>'.repeat(n / 7), '<think>'.repeat(n / 7)],
      ];
      for (const [response, finalAnswer] of cases) {
        expect(extractAnswer(response, 'final_answer')).to.equal(finalAnswer);
        expect(choiceLetter(response, CAPITALS)).to.equal(null);
        expect(scoreResponse(rule, { gold: 'x' }, response).score).to.equal(0);
      }
      expect(extractAnswer('1,'.repeat(n / 2), 'last_number')).to.equal('1');
      expect(extractAnswer(`0.${'0'.repeat(n)}`, 'last_number')).to.equal('0');
    });

    it('a hostile pattern on a long response returns (RE2: no catastrophic backtracking)', () => {
      const hostile = `${'a'.repeat(50_000)}!`;
      for (const pattern of ['(a+)+$', '(a|aa)+$', '(a|a?)+$', '(.*a){12}$']) {
        expect(userRegexProblem(pattern), pattern).to.equal(null);
        expect(extractAnswer(hostile, 'regex', pattern), pattern).to.equal('');
        expect(normaliseAnswer(hostile, { regexesToIgnore: [pattern] }), pattern).to.equal('a'.repeat(50_000));
      }
    });
  });
});
