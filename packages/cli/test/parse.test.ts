import { describe, expect, it } from 'vitest';
import { jsonObjectArg, oneOf, positiveInt, timeArg } from '../src/commands/parse.js';
import { CliError, ExitCode } from '../src/index.js';
import { scratch } from './support.js';

function usage(fn: () => unknown): CliError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).exitCode).toBe(ExitCode.usage);
    return err as CliError;
  }
  throw new Error('expected a usage error');
}

describe('parse - command-line values', () => {
  it('parse - --args takes a JSON object inline or from @file', async () => {
    expect(jsonObjectArg('--args', '{"filters":[{"field":"id","op":"eq","value":"1"}]}')).toEqual({
      filters: [{ field: 'id', op: 'eq', value: '1' }],
    });
    const dir = await scratch({ 'args.json': '{"limit": 5}' });
    try {
      expect(jsonObjectArg('--args', `@${dir.root}/args.json`)).toEqual({ limit: 5 });
    } finally {
      await dir.cleanup();
    }
  });

  it('parse - --args that is not a JSON object is a usage error saying what was found', () => {
    expect(usage(() => jsonObjectArg('--args', '{limit: 5}')).message).toMatch(
      /^--args: not valid JSON \(/,
    );
    expect(usage(() => jsonObjectArg('--args', '[1,2]')).message).toBe(
      '--args: expected a JSON object, found an array',
    );
    expect(usage(() => jsonObjectArg('--args', 'null')).message).toBe(
      '--args: expected a JSON object, found null',
    );
    expect(usage(() => jsonObjectArg('--args', '@/nonexistent/args.json')).message).toBe(
      '--args: cannot read /nonexistent/args.json: ENOENT',
    );
  });

  it('parse - integers, choices and times', () => {
    expect(positiveInt('--limit', '20')).toBe(20);
    expect(usage(() => positiveInt('--limit', '0')).message).toBe(
      '--limit: expected a positive integer, found "0"',
    );
    expect(usage(() => positiveInt('--limit', '2.5')).message).toContain('positive integer');
    expect(oneOf('--format', 'mcp', ['json', 'mcp'])).toBe('mcp');
    expect(usage(() => oneOf('--format', 'xml', ['json', 'mcp'])).message).toBe(
      '--format: expected one of json, mcp, found "xml"',
    );
    const now = Date.parse('2025-06-01T12:00:00Z');
    expect(timeArg('--since', '15m', now).toISOString()).toBe('2025-06-01T11:45:00.000Z');
    expect(timeArg('--since', '2d', now).toISOString()).toBe('2025-05-30T12:00:00.000Z');
    expect(timeArg('--since', '2025-01-31T08:00:00Z').toISOString()).toBe(
      '2025-01-31T08:00:00.000Z',
    );
    expect(usage(() => timeArg('--since', 'yesterday')).message).toContain(
      'expected an ISO-8601 time',
    );
  });
});
