/** Where "now" comes from, so time-based rules (rate-limit windows, dates) are testable without sleeping. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
