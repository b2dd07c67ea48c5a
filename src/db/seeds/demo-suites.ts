/**
 * The demo quality suites, as registration bodies: a small arithmetic QA suite, a
 * multiple-choice commonsense suite and an lm-eval-harness suite naming real task keys.
 * The demo seed registers and approves them; the OpenAPI examples and the agent-context
 * show the first two as worked suites, so what the documents show is what the demo serves.
 */

const ARITHMETIC: [string, number][] = [
  ['What is 17 + 25?', 42],
  ['What is 9 x 8?', 72],
  ['A box holds 12 eggs. How many eggs are in 7 boxes?', 84],
  ['What is 144 divided by 12?', 12],
  ['Sara has 35 marbles and gives away 18. How many are left?', 17],
  ['What is 15% of 200?', 30],
  ['A train travels 60 km per hour for 3.5 hours. How many km does it travel?', 210],
  ['What is 2 to the power of 10?', 1024],
  ['What is 1,000 - 1?', 999],
  ['Tom buys 3 books at $14 each. How much does he pay in dollars?', 42],
  ['What is the sum of the first 10 positive integers?', 55],
  ['A rectangle is 8 m by 13 m. What is its area in square metres?', 104],
];

const COMMONSENSE: { input: string; choices: string[]; gold: string }[] = [
  {
    input: 'Where would you most likely keep milk so it stays fresh?',
    choices: ['In a drawer', 'In the refrigerator', 'On the windowsill', 'In the oven'],
    gold: 'B',
  },
  { input: 'What do people usually use to cut paper?', choices: ['A spoon', 'Scissors', 'A towel', 'A pillow'], gold: 'B' },
  {
    input: 'If it starts raining while you are outside, what might you open?',
    choices: ['An umbrella', 'A book', 'A window', 'A can'],
    gold: 'A',
  },
  {
    input: 'What happens to ice left in the sun on a hot day?',
    choices: ['It grows', 'It melts', 'It turns to stone', 'It becomes louder'],
    gold: 'B',
  },
  {
    input: 'Which is the best place to buy fresh bread?',
    choices: ['A hardware store', 'A bakery', 'A petrol station pump', 'A library'],
    gold: 'B',
  },
  { input: 'What would you wear on your feet to go hiking?', choices: ['Gloves', 'A scarf', 'Boots', 'A hat'], gold: 'C' },
  {
    input: 'Why do people set an alarm clock at night?',
    choices: ['To wake up on time', 'To cook dinner', 'To water plants', 'To paint walls'],
    gold: 'A',
  },
  {
    input: 'Which animal is most likely to be kept as a pet in a flat?',
    choices: ['An elephant', 'A cat', 'A whale', 'A giraffe'],
    gold: 'B',
  },
];

export const demoSuiteBodies = [
  {
    slug: 'arithmetic-qa-mini',
    name: 'Arithmetic QA (mini)',
    description: 'Twelve short word problems with a single numeric answer. Scored by exact match on the last number of the answer.',
    category: 'math',
    runner: 'CUSTOM',
    version: '1.0',
    sourceUrl: 'https://example.org/suites/arithmetic-qa-mini',
    suiteDoc: {
      version: '1.0',
      runner: 'custom',
      scoringMethod: 'exact_match',
      aggregation: 'weighted_mean',
      runConfig: { temperature: 0, maxNewTokens: 256, seed: 7 },
      tasks: [
        {
          key: 'arithmetic',
          displayName: 'Arithmetic word problems',
          taskType: 'qa',
          weight: 1,
          nShots: 0,
          promptTemplate: 'Solve the problem. End with "Final answer: <number>".\n\n{{input}}',
          maxNewTokens: 256,
          answerExtraction: 'last_number',
          dataset: { source: 'inline', items: ARITHMETIC.map(([input, gold]) => ({ input, gold })) },
        },
      ],
    },
  },
  {
    slug: 'commonsense-mc-mini',
    name: 'Everyday commonsense (multiple choice)',
    description: 'Eight everyday questions with four choices each; the answer is reduced to its letter.',
    category: 'commonsense',
    runner: 'CUSTOM',
    version: '1.0',
    suiteDoc: {
      version: '1.0',
      runner: 'custom',
      scoringMethod: 'exact_match',
      aggregation: 'weighted_mean',
      runConfig: { temperature: 0, maxNewTokens: 16 },
      tasks: [
        {
          key: 'everyday',
          displayName: 'Everyday situations',
          taskType: 'multiple_choice',
          weight: 2,
          promptTemplate: 'Answer with the letter of the best choice only.\n\n{{input}}\n{{choices}}\nAnswer:',
          maxNewTokens: 16,
          answerExtraction: 'none',
          dataset: { source: 'inline', items: COMMONSENSE.slice(0, 5) },
        },
        {
          key: 'objects',
          displayName: 'Objects and places',
          taskType: 'multiple_choice',
          weight: 1,
          promptTemplate: 'Answer with the letter of the best choice only.\n\n{{input}}\n{{choices}}\nAnswer:',
          maxNewTokens: 16,
          answerExtraction: 'none',
          dataset: { source: 'inline', items: COMMONSENSE.slice(5) },
        },
      ],
    },
  },
  {
    slug: 'lm-eval-core',
    name: 'lm-eval core five',
    description: 'Five standard lm-evaluation-harness tasks, run locally with lm_eval and uploaded as accuracies.',
    category: 'reasoning',
    runner: 'LM_EVAL_HARNESS',
    version: '0.4',
    sourceUrl: 'https://github.com/EleutherAI/lm-evaluation-harness',
    suiteDoc: {
      version: '0.4',
      runner: 'lm-eval-harness',
      scoringMethod: 'exact_match',
      aggregation: 'mean',
      runConfig: { temperature: 0 },
      tasks: [
        { key: 'arc_challenge', displayName: 'ARC-Challenge (acc_norm)', taskType: 'multiple_choice', nShots: 25 },
        { key: 'hellaswag', displayName: 'HellaSwag (acc_norm)', taskType: 'multiple_choice', nShots: 10 },
        { key: 'mmlu', displayName: 'MMLU (acc)', taskType: 'multiple_choice', nShots: 5 },
        { key: 'winogrande', displayName: 'WinoGrande (acc)', taskType: 'multiple_choice', nShots: 5 },
        { key: 'gsm8k', displayName: 'GSM8K (exact match, strict)', taskType: 'qa', nShots: 5 },
      ],
    },
  },
] as const;
