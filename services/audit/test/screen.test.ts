import { describe, expect, it } from 'vitest';
import { draftRecord } from '../src/ingest/draft.js';
import { screenArguments, screenEvent } from '../src/ingest/screen.js';
import { callCompleted } from './support/events.js';

const CANARY = 'ghp_Zq3vX9kLmN2pQ8rS7tU6wY5aB4cD1eF0gH';

describe('screen', () => {
  it('screen - ordinary arguments are kept as they are', () => {
    const args = { filters: [{ field: 'status', op: 'eq', value: 'open' }], limit: 10 };
    expect(screenArguments(args, 8192)).toEqual({ arguments: args, redacted: 0, truncated: false });
  });

  it('screen - values that look like secrets become [redacted], wherever they are', () => {
    const result = screenArguments(
      {
        filters: [{ field: 'note', op: 'match', value: `use ${CANARY} please` }],
        password: 'hunter2-hunter2',
        nested: { list: ['fine', 'postgres://admin:s3cret@db.internal/orders'] },
        limit: 10,
      },
      8192,
    );
    expect(result.arguments).toEqual({
      filters: [{ field: 'note', op: 'match', value: '[redacted]' }],
      password: '[redacted]',
      nested: { list: ['fine', '[redacted]'] },
      limit: 10,
    });
    expect(result.redacted).toBe(3);
    expect(JSON.stringify(result.arguments)).not.toContain('ghp_');
  });

  it('screen - a key that looks like a secret is replaced with its value', () => {
    const result = screenArguments({ [CANARY]: 'x', ok: 1 }, 8192);
    expect(result.arguments).toEqual({ '[redacted]#1': '[redacted]', ok: 1 });
  });

  it('screen - oversized arguments become a marker with size, digest and a short preview', () => {
    const big = { filters: [{ field: 'note', op: 'match', value: 'a'.repeat(20_000) }] };
    const result = screenArguments(big, 8192);
    expect(result.truncated).toBe(true);
    expect(result.arguments).toMatchObject({ _truncated: true, _bytes: 20_054 });
    expect(result.arguments._sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(String(result.arguments._preview)).toHaveLength(1025);
    expect(JSON.stringify(result.arguments).length).toBeLessThan(1300);
  });

  it('screen - the event is copied, never changed in place, and the record holds the screened copy', () => {
    const event = callCompleted({ arguments: { token: 'abc123abc123', limit: 1 } });
    const screened = screenEvent(event, 8192);
    expect(screened.redacted).toBe(1);
    expect(event.payload.case === 'callCompleted' && event.payload.value.arguments).toEqual({
      token: 'abc123abc123',
      limit: 1,
    });
    const stored = draftRecord(screened.event).event;
    expect(stored).not.toContain('abc123abc123');
    expect(JSON.parse(stored).callCompleted.arguments).toEqual({ token: '[redacted]', limit: 1 });
  });
});
