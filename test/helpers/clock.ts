import type { Clock } from '../../src/lib/clock.ts';

/** A clock the test moves by hand: rate-limit windows pass without sleeping. */
export class TestClock implements Clock {
  private current: number;

  constructor(start: Date = new Date()) {
    this.current = start.getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  advance(ms: number): void {
    this.current += ms;
  }

  set(date: Date | string): void {
    this.current = new Date(date).getTime();
  }
}
