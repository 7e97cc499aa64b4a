import { describe, expect, it } from 'vitest';
import { RebuildScheduler } from '../src/index.js';

/** A run that finishes when told to. */
function gatedRuns() {
  const runs: { tenant: string; changes: number[]; release: () => void }[] = [];
  const run = (tenant: string, changes: number[]) =>
    new Promise<number>((resolve) => {
      const index = runs.length;
      runs.push({ tenant, changes, release: () => resolve(index) });
    });
  return { runs, run };
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(check()).toBe(true);
}

describe('scheduler', () => {
  it('scheduler - a lone request runs at once; requests during a run join one follow-up run', async () => {
    const { runs, run } = gatedRuns();
    const scheduler = new RebuildScheduler<number, number>({ run, windowMs: 0 });
    const first = scheduler.request('t', 1);
    await until(() => runs.length === 1);
    const later = [2, 3, 4, 5].map((n) => scheduler.request('t', n));
    runs[0]?.release();
    expect(await first).toBe(0);
    await until(() => runs.length === 2);
    expect(runs[1]?.changes).toEqual([2, 3, 4, 5]);
    runs[1]?.release();
    expect(await Promise.all(later)).toEqual([1, 1, 1, 1]);
    expect(runs).toHaveLength(2);
  });

  it('scheduler - tenants rebuild independently', async () => {
    const { runs, run } = gatedRuns();
    const scheduler = new RebuildScheduler<number, number>({ run, windowMs: 0 });
    const a = scheduler.request('a', 1);
    const b = scheduler.request('b', 2);
    await until(() => runs.length === 2);
    expect(runs.map((r) => r.tenant).sort()).toEqual(['a', 'b']);
    runs.forEach((r) => r.release());
    await Promise.all([a, b]);
  });

  it('scheduler - within the window a second request waits for it, then runs once for all', async () => {
    let now = 1_000;
    const { runs, run } = gatedRuns();
    const scheduler = new RebuildScheduler<number, number>({ run, windowMs: 40, now: () => now });
    const first = scheduler.request('t', 1);
    await until(() => runs.length === 1);
    runs[0]?.release();
    await first;
    const second = scheduler.request('t', 2);
    const third = scheduler.request('t', 3);
    await new Promise((r) => setTimeout(r, 5));
    expect(runs).toHaveLength(1); // still inside the window
    now += 40;
    await until(() => runs.length === 2);
    expect(runs[1]?.changes).toEqual([2, 3]);
    runs[1]?.release();
    expect(await Promise.all([second, third])).toEqual([1, 1]);
  });

  it('scheduler - a failed run fails its requests; stop rejects waiting ones', async () => {
    const scheduler = new RebuildScheduler<number, number>({
      run: () => Promise.reject(new Error('store down')),
      windowMs: 0,
    });
    await expect(scheduler.request('t', 1)).rejects.toThrow('store down');
    const gated = gatedRuns();
    const stopping = new RebuildScheduler<number, number>({ run: gated.run, windowMs: 0 });
    const running = stopping.request('t', 1);
    await until(() => gated.runs.length === 1);
    const waiting = stopping.request('t', 2);
    const stopped = stopping.stop();
    await expect(waiting).rejects.toThrow('stopped');
    gated.runs[0]?.release();
    await stopped;
    expect(await running).toBe(0);
    await expect(stopping.request('t', 3)).rejects.toThrow('stopped');
  });
});
