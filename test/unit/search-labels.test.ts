/** Pure helpers of the leaderboard page (issue 17): search words, quantization spellings, labels. */
import { expect } from 'chai';
import { engineChoices, hardwareLabel, hwClassLabel } from '../../src/lib/labels.ts';
import { canonicalQuantization, KNOWN_QUANTIZATIONS } from '../../src/lib/quantization-labels.ts';
import { everyTokenSql, hardwareNameTokens, searchTokens, squashSeparators } from '../../src/lib/search-tokens.ts';

describe('search words', () => {
  it('splits on white space, lower case, each word once', () => {
    expect(searchTokens('  Llama 3.1  8B llama\tInstruct ')).to.deep.equal(['llama', '3.1', '8b', 'instruct']);
    expect(searchTokens('   ')).to.deep.equal([]);
  });

  it('makes a maker or brand word optional in hardware names, unless it is all there is', () => {
    expect(hardwareNameTokens('Apple M4 Max')).to.deep.equal(['m4', 'max']);
    expect(hardwareNameTokens('NVIDIA GeForce RTX 4090')).to.deep.equal(['rtx', '4090']);
    expect(hardwareNameTokens('AMD')).to.deep.equal(['amd']);
    expect(hardwareNameTokens('amd intel')).to.deep.equal(['amd', 'intel']);
  });

  it('drops the separators names write either way', () => {
    expect(squashSeparators('qwen3_moe')).to.equal(squashSeparators('qwen3moe'));
    expect(squashSeparators('Llama-3.1 8B')).to.equal('Llama3.18B');
  });

  it('builds one LIKE per word, wildcards literal, separators ignored when asked', () => {
    expect(everyTokenSql('t', ['a%b', 'c'])).to.deep.equal({ sql: '(t like ? and t like ?)', bindings: ['%a\\%b%', '%c%'] });
    const squashed = everyTokenSql('t', ['qwen3_moe', '_'], { squashed: true });
    expect(squashed.sql).to.equal("(regexp_replace(t, '[-_[:space:]]', '', 'g') like ? and t like ?)");
    expect(squashed.bindings).to.deep.equal(['%qwen3moe%', '%\\_%']);
    expect(everyTokenSql('t', [])).to.deep.equal({ sql: 'true', bindings: [] });
  });
});

describe('quantization spellings', () => {
  it('reads a known label however it is spelled', () => {
    expect(canonicalQuantization('q4_k_m')).to.equal('Q4_K_M');
    expect(canonicalQuantization('Q4-K-M')).to.equal('Q4_K_M');
    expect(canonicalQuantization(' q8_0 ')).to.equal('Q8_0');
    expect(canonicalQuantization('awq')).to.equal('AWQ');
    expect(canonicalQuantization('BNB_NF4')).to.equal('bnb-nf4');
    expect(canonicalQuantization('FP8')).to.equal('fp8');
  });

  it('keeps a label typed exactly as listed (int4 and INT4 are both), and unknown ones as typed', () => {
    expect(canonicalQuantization('INT4')).to.equal('INT4');
    expect(canonicalQuantization('int4')).to.equal('int4');
    expect(canonicalQuantization('Int4')).to.equal('int4');
    expect(canonicalQuantization('exl2-4.0bpw')).to.equal('exl2-4.0bpw');
    for (const label of KNOWN_QUANTIZATIONS) expect(canonicalQuantization(label)).to.equal(label);
  });
});

describe('human labels', () => {
  it('names hardware classes as people say them', () => {
    expect(['DISCRETE_GPU', 'UNIFIED', 'CPU_ONLY'].map(hwClassLabel)).to.deep.equal(['Discrete GPU', 'Unified memory', 'CPU only']);
  });

  it('says GPU memory is per card when there are several', () => {
    expect(hardwareLabel({ hwClass: 'DISCRETE_GPU', gpuName: 'RTX 4090', gpuCount: 2, vramGb: 24 })).to.equal('2× RTX 4090 · 24 GB each');
    expect(hardwareLabel({ hwClass: 'DISCRETE_GPU', gpuName: 'RTX 4090', gpuCount: 1, vramGb: 24 })).to.equal('RTX 4090 · 24 GB');
    expect(
      hardwareLabel({
        hwClass: 'DISCRETE_GPU',
        isHeterogeneousGpu: true,
        gpus: [
          { gpuName: 'RTX 3090', count: 1, vramGb: 24 },
          { gpuName: 'Tesla P40', count: 2, vramGb: 24 },
        ],
      }),
    ).to.equal('RTX 3090 · 24 GB + 2× Tesla P40 · 24 GB each');
  });

  it('lists common engines first, the rest alphabetically', () => {
    expect(engineChoices(['tinygrad', 'vllm', 'atlas', 'llama.cpp', 'ollama'])).to.deep.equal({
      common: ['llama.cpp', 'ollama', 'vllm'],
      others: ['atlas', 'tinygrad'],
    });
  });
});
