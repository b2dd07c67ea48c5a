import { expect } from 'chai';
import { cpus, gpus, unifiedChips } from '../../src/data/hardware-catalogue.ts';

/**
 * Every GPU and unified-memory chip the catalogue holds without a peak FP16 figure, by the
 * reason it has none (src/data/hardware-catalogue.ts, `PeakFp16` and the group comments). A
 * device added without a figure, or a figure added, fails the coverage test until this list
 * says so: no gap goes unnamed.
 */
const withoutPeakFp16: Record<string, string[]> = {
  'Pascal GP102-GP108: FP16 at 1/64 of FP32, engines compute in FP32 there, so no FP16 figure describes them': [
    'NVIDIA GeForce GT 1030',
    'NVIDIA GeForce GTX 1050',
    'NVIDIA GeForce GTX 1050 Ti',
    'NVIDIA GeForce GTX 1060',
    'NVIDIA GeForce GTX 1070',
    'NVIDIA GeForce GTX 1070 Ti',
    'NVIDIA GeForce GTX 1080',
    'NVIDIA GeForce GTX 1080 Ti',
    'NVIDIA TITAN X Pascal',
    'NVIDIA TITAN Xp',
    'NVIDIA GeForce GTX 1050 Laptop GPU',
    'NVIDIA GeForce GTX 1050 Ti Laptop GPU',
    'NVIDIA GeForce GTX 1060 Laptop GPU',
    'NVIDIA GeForce GTX 1070 Laptop GPU',
    'NVIDIA GeForce GTX 1080 Laptop GPU',
    'NVIDIA GeForce MX150',
    'NVIDIA GeForce MX250',
    'NVIDIA GeForce MX350',
    'NVIDIA Quadro P1000',
    'NVIDIA Quadro P2000',
    'NVIDIA Quadro P4000',
    'NVIDIA Quadro P5000',
    'NVIDIA Quadro P6000',
    'NVIDIA Tesla P4',
    'NVIDIA Tesla P40',
  ],
  "laptop GPUs whose vendor boost-clock range or figure was not checked (the laptop's power limit sets the clock": [
    'NVIDIA GeForce GTX 1650 Ti Laptop GPU',
    'NVIDIA GeForce RTX 2070 SUPER Laptop GPU',
    'NVIDIA GeForce RTX 2080 SUPER Laptop GPU',
    'NVIDIA GeForce RTX 5050 Laptop GPU',
    'NVIDIA GeForce MX450',
    'NVIDIA GeForce MX550',
    'NVIDIA GeForce MX570',
    'NVIDIA T600 Laptop GPU',
    'NVIDIA T1200 Laptop GPU',
    'NVIDIA RTX A1000 Laptop GPU',
    'NVIDIA RTX A2000 Laptop GPU',
    'NVIDIA RTX A3000 Laptop GPU',
    'NVIDIA RTX A4000 Laptop GPU',
    'NVIDIA RTX A5000 Laptop GPU',
    'NVIDIA RTX A5500 Laptop GPU',
    'NVIDIA RTX 2000 Ada Generation Laptop GPU',
    'NVIDIA RTX 3000 Ada Generation Laptop GPU',
    'NVIDIA RTX 3500 Ada Generation Laptop GPU',
    'NVIDIA RTX 4000 Ada Generation Laptop GPU',
    'NVIDIA RTX 5000 Ada Generation Laptop GPU',
    'Intel Arc A730M',
    'Intel Arc A770M',
  ],
  'RTX 3050 Laptop GPU: its 4 GB and 6 GB versions are different chips, and one figure would fit neither': [
    'NVIDIA GeForce RTX 3050 Laptop GPU',
  ],
  'no vendor figure, or no unit count and boost clock, checked': [
    'NVIDIA RTX PRO 5000 Blackwell',
    'NVIDIA RTX PRO 4500 Blackwell',
    'NVIDIA RTX PRO 4000 Blackwell',
    'NVIDIA RTX PRO 2000 Blackwell',
    'NVIDIA L20',
    'AMD Radeon RX 7700',
    'AMD Radeon PRO W7700',
    'AMD Ryzen AI Max+ 392',
    'AMD Ryzen AI Max+ 388',
  ],
  'added with the real-spellings table (issue 33): no boost clock (RX 7650 GRE, Radeon Pro WX) or peak clock (Max 1100) checked': [
    'AMD Radeon RX 7650 GRE',
    'AMD Radeon Pro WX 5100',
    'AMD Radeon Pro WX 7100',
    'Intel Data Center GPU Max 1100',
  ],
  'Apple states no TFLOPS or GPU clock from M3 on': [
    'Apple M3',
    'Apple M3 Pro',
    'Apple M3 Max',
    'Apple M3 Ultra',
    'Apple M4',
    'Apple M4 Pro',
    'Apple M4 Max',
    'Apple M5',
    'Apple M5 Pro',
    'Apple M5 Max',
  ],
  'Intel states GPU TOPS for a few Lunar Lake models only': [
    'Intel Core Ultra 5 226V',
    'Intel Core Ultra 5 228V',
    'Intel Core Ultra 5 236V',
    'Intel Core Ultra 5 238V',
    'Intel Core Ultra 7 256V',
    'Intel Core Ultra 7 258V',
    'Intel Core Ultra 7 266V',
    'Intel Core Ultra 7 268V',
    'Intel Core Ultra 9 288V',
    'Intel Core Ultra 5 125H',
    'Intel Core Ultra 5 135H',
    'Intel Core Ultra 5 125U',
    'Intel Core Ultra 5 135U',
    'Intel Core Ultra 7 155H',
    'Intel Core Ultra 7 165H',
    'Intel Core Ultra 7 155U',
    'Intel Core Ultra 7 165U',
    'Intel Core Ultra 9 185H',
    'Intel Core Ultra 5 225H',
    'Intel Core Ultra 7 255H',
    'Intel Core Ultra 9 285H',
  ],
  "Qualcomm states the Adreno X1's FP32 TFLOPS only": ['Qualcomm Snapdragon X Elite', 'Qualcomm Snapdragon X Plus'],
  'NVIDIA states FP4 with sparsity only': ['NVIDIA GB10', 'NVIDIA Jetson AGX Thor'],
};

const devices = [...gpus, ...unifiedChips];
const figure = (name: string): number | undefined => devices.find((device) => device.name === name)?.peakFp16Tflops;

describe('hardware catalogue: peak FP16', () => {
  it('holds a figure for every GPU and chip, or names the gap with its reason', () => {
    const listed = Object.values(withoutPeakFp16).flat();
    expect(new Set(listed).size, 'a device listed twice').to.equal(listed.length);
    for (const name of listed)
      expect(
        devices.some((device) => device.name === name),
        `${name} is not in the catalogue`,
      ).to.equal(true);
    const missing = devices.filter((device) => device.peakFp16Tflops === undefined).map((device) => device.name);
    expect([...missing].sort()).to.deep.equal([...listed].sort());
    // Most of the catalogue has one: the gaps are the exception.
    expect(devices.length - missing.length).to.be.greaterThan(180);
  });

  it('matches the vendor datasheets and whitepapers where they state it', () => {
    // Ada whitepaper: FP16 Tensor with FP32 accumulate, dense (330.3 with FP16 accumulate).
    expect(figure('NVIDIA GeForce RTX 4090')).to.equal(165.2);
    // Turing whitepaper (reference clocks) and GA102 whitepaper, same column.
    expect(figure('NVIDIA GeForce RTX 2080 Ti')).to.equal(53.8);
    expect(figure('NVIDIA GeForce RTX 3080')).to.equal(61.3); // the 12 GB card (70 SMs); the 10 GB one is 59.5
    // Professional and data-center cards: full-rate FP32 accumulate, datasheet figures without sparsity.
    expect(figure('NVIDIA Quadro RTX 8000')).to.equal(130.5);
    expect(figure('NVIDIA A100 SXM')).to.equal(312);
    expect(figure('NVIDIA H100 SXM')).to.equal(989.5);
    expect(figure('NVIDIA Tesla T4')).to.equal(65);
    // AMD: Instinct MI300X datasheet (matrix FP16, dense); RX 7900 XTX 'Peak Half Precision'.
    expect(figure('AMD Instinct MI300X')).to.equal(1307.4);
    expect(figure('AMD Radeon RX 7900 XTX')).to.equal(122.8);
    // Apple: M1 family as Apple states it; M2 Ultra = 76 cores x 128 lanes x 2 x 1.398 GHz.
    expect(figure('Apple M1 Max')).to.equal(10.4);
    expect(figure('Apple M2 Ultra')).to.equal(27.2);
  });

  it('keeps the GeForce figure at the FP32-accumulate rate: a professional card on the same chip holds twice it per SM and clock', () => {
    // TITAN RTX and Quadro RTX 6000 / 8000 are the full TU102 (72 SMs) at 1.77 GHz: the
    // same figure. The RTX 2080 Ti (68 SMs, 1.545 GHz) at half the per-SM rate.
    expect(figure('NVIDIA TITAN RTX')).to.equal(figure('NVIDIA Quadro RTX 6000'));
    const perSmClockGeForce = figure('NVIDIA GeForce RTX 2080 Ti')! / (68 * 1.545);
    const perSmClockPro = figure('NVIDIA Quadro RTX 6000')! / (72 * 1.77);
    expect(perSmClockPro / perSmClockGeForce).to.be.closeTo(2, 0.01);
  });

  it('states every figure as a positive number within a plausible range for the device', () => {
    for (const device of devices) {
      const tflops = device.peakFp16Tflops;
      if (tflops === undefined) continue;
      expect(tflops, device.name).to.be.a('number').and.greaterThan(0.5).and.lessThan(5000);
      // FLOPs per byte of memory bandwidth (the roofline ridge): from about 10 (Polaris) to a
      // few hundred (workstation cards with narrow buses); outside that a digit is wrong.
      const ridge = (tflops * 1000) / device.bandwidthGBs;
      expect(ridge, `${device.name}: ${tflops} TFLOPS over ${device.bandwidthGBs} GB/s`).to.be.greaterThan(5).and.lessThan(700);
      expect(device.source, `${device.name} cites where its FP16 figure comes from`).to.match(/FP16/);
    }
  });

  it('orders cards of one line as their figures should: a faster card never holds the lower figure', () => {
    const ladder = [
      'NVIDIA GeForce RTX 4060',
      'NVIDIA GeForce RTX 4060 Ti',
      'NVIDIA GeForce RTX 4070',
      'NVIDIA GeForce RTX 4070 SUPER',
      'NVIDIA GeForce RTX 4070 Ti',
      'NVIDIA GeForce RTX 4070 Ti SUPER',
      'NVIDIA GeForce RTX 4080',
      'NVIDIA GeForce RTX 4080 SUPER',
      'NVIDIA GeForce RTX 4090',
    ];
    for (let i = 1; i < ladder.length; i += 1) expect(figure(ladder[i]!), ladder[i]).to.be.greaterThan(figure(ladder[i - 1]!)!);
    expect(figure('NVIDIA GeForce RTX 4090 Laptop GPU')).to.be.lessThan(figure('NVIDIA GeForce RTX 4080')!);
  });

  it('holds no CPU figure, as the CpuSpec field documents (no vendor figure, no published all-core vector clock)', () => {
    expect(cpus.filter((cpu) => cpu.peakFp16Tflops !== undefined).map((cpu) => cpu.name)).to.deep.equal([]);
  });
});
