/**
 * Indicative exchange rates to US dollars (units of USD per 1 unit of the currency),
 * rounded, as of late 2026. Used only to put self-reported hardware prices on one scale
 * for the `tokPerDollar` ranking; they are not financial data. Every currency that
 * `hardwareCost.currency` accepts is here.
 */
/** The day the rates below were taken: pages show it beside converted prices. */
export const fxRatesDate = '2026-11-01';

export const usdPerUnit: Readonly<Record<string, number>> = Object.freeze({
  USD: 1,
  EUR: 1.08,
  GBP: 1.27,
  JPY: 0.0067,
  CNY: 0.14,
  CAD: 0.73,
  AUD: 0.66,
  CHF: 1.13,
  SEK: 0.095,
  NOK: 0.093,
  DKK: 0.145,
  PLN: 0.25,
  KRW: 0.00073,
  INR: 0.012,
  BRL: 0.18,
  MXN: 0.055,
  SGD: 0.75,
  HKD: 0.128,
  NZD: 0.6,
  TWD: 0.031,
});

export function convertToUsd(amount: number, currency: string): number | null {
  const rate = usdPerUnit[currency];
  return rate === undefined ? null : Math.round(amount * rate * 100) / 100;
}
