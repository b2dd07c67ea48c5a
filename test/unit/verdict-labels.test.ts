import { expect } from 'chai';
import { verdictLabel, verdictReason } from '../../src/lib/labels.ts';

describe('verdict labels on the pages', () => {
  it('names unknown "Not judged" and keeps the other verdicts', () => {
    expect(['plausible', 'suspect', 'unknown'].map(verdictLabel)).to.deep.equal(['Plausible', 'Suspect', 'Not judged']);
  });

  it('writes the reason as a sentence after the label, without repeating "not judged"', () => {
    expect(verdictReason('not judged: speculative decoding can accept several tokens per pass over the weights')).to.equal(
      'Speculative decoding can accept several tokens per pass over the weights',
    );
    expect(verdictReason('within 1.1 × the 232.0 tok/s memory-bandwidth bound')).to.equal(
      'Within 1.1 × the 232.0 tok/s memory-bandwidth bound',
    );
    expect(verdictReason('unknown memory bandwidth')).to.equal('Unknown memory bandwidth');
    expect(verdictReason(null)).to.equal('');
  });
});
