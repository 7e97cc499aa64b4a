import { describe, expect, it } from 'vitest';
import { REMEMBERED_EVENTS, countUse, decayedScore } from '../src/learning/decay.js';

const DAY = 24 * 3600_000;
const HALF_LIFE = 7 * DAY;

describe('decay - usage scores', () => {
  it('decay - a score halves every half-life', () => {
    expect(decayedScore({ score: 4, at: 0 }, HALF_LIFE, HALF_LIFE)).toBeCloseTo(2);
    expect(decayedScore({ score: 4, at: 0 }, 2 * HALF_LIFE, HALF_LIFE)).toBeCloseTo(1);
    expect(decayedScore({ score: 4, at: 10 }, 0, HALF_LIFE)).toBe(4);
  });

  it('decay - three uses within hours cross the default threshold of 2.5 only with the third', () => {
    let signal = countUse(undefined, 'e1', 0, HALF_LIFE).signal;
    signal = countUse(signal, 'e2', 3600_000, HALF_LIFE).signal;
    expect(signal.score).toBeLessThan(2.5);
    const third = countUse(signal, 'e3', 2 * 3600_000, HALF_LIFE);
    expect(third.signal.score).toBeGreaterThan(2.98);
    expect(third.signal.score).toBeLessThan(3);
  });

  it('decay - uses a month apart never add up to a threshold of 3', () => {
    let signal = countUse(undefined, 'e0', 0, HALF_LIFE).signal;
    for (let i = 1; i < 10; i++) signal = countUse(signal, `e${i}`, i * 30 * DAY, HALF_LIFE).signal;
    expect(signal.score).toBeLessThan(1.1);
  });

  it('decay - a redelivered event is counted once', () => {
    const first = countUse(undefined, 'e1', 0, HALF_LIFE).signal;
    const again = countUse(first, 'e1', 1000, HALF_LIFE);
    expect(again.counted).toBe(false);
    expect(again.signal).toBe(first);
  });

  it('decay - a late event is decayed to its age instead of moving time back', () => {
    const now = countUse(undefined, 'e1', HALF_LIFE, HALF_LIFE).signal;
    const late = countUse(now, 'e0', 0, HALF_LIFE).signal;
    expect(late.at).toBe(HALF_LIFE);
    expect(late.score).toBeCloseTo(1.5);
  });

  it('decay - only the most recent event ids are remembered', () => {
    let signal = countUse(undefined, 'e0', 0, HALF_LIFE).signal;
    for (let i = 1; i < REMEMBERED_EVENTS + 10; i++)
      signal = countUse(signal, `e${i}`, i, HALF_LIFE).signal;
    expect(signal.seen).toHaveLength(REMEMBERED_EVENTS);
    expect(signal.seen.at(-1)).toBe(`e${REMEMBERED_EVENTS + 9}`);
  });
});
