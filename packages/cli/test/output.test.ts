import { describe, expect, it } from 'vitest';
import { RpcError, RpcStatus } from '@tollgate/contracts';
import { TollgateError } from '@tollgate/core';
import { toolCallError } from '@tollgate/sdk';
import {
  CliError,
  clip,
  createStyle,
  displayWidth,
  failureLine,
  renderTable,
  stripAnsi,
  toFailure,
  toJsonText,
  usageError,
} from '../src/index.js';

const plain = createStyle(false);

describe('output - tables and text', () => {
  it('output - a table pads columns to the widest cell, wide characters counting double', () => {
    const rows = [
      { name: 'es_orders', version: 3, note: '订单' },
      { name: 'es_customers_long', version: 12, note: 'x' },
    ];
    const text = renderTable(
      [
        { header: 'NAME', cell: (r: (typeof rows)[number]) => r.name },
        { header: 'V', cell: (r) => String(r.version), right: true },
        { header: 'NOTE', cell: (r) => r.note },
      ],
      rows,
      plain,
    );
    expect(text.split('\n')).toEqual([
      'NAME                V  NOTE',
      'es_orders           3  订单',
      'es_customers_long  12  x',
    ]);
  });

  it('output - cells are cut with an ellipsis and kept on one line', () => {
    expect(clip('abcdefghij', 5)).toBe('abcd…');
    expect(clip('短文本很长很长', 6)).toBe('短文…');
    expect(displayWidth('短a')).toBe(3);
    const text = renderTable(
      [{ header: 'A', cell: (r: string) => r, max: 8 }],
      ['line one\nline two'],
      plain,
    );
    expect(text.split('\n')[1]).toBe('line on…');
  });

  it('output - colour codes appear only when the style is enabled', () => {
    const on = createStyle(true);
    expect(on.red('x')).toBe('\u001b[31mx\u001b[39m');
    expect(stripAnsi(on.bold(on.green('ok')))).toBe('ok');
    expect(plain.red('x')).toBe('x');
  });

  it('output - JSON text turns bigints into numbers (strings past the safe range)', () => {
    expect(JSON.parse(toJsonText({ seq: 42n, big: 2n ** 64n }))).toEqual({
      seq: 42,
      big: '18446744073709551616',
    });
  });
});

describe('output - failures', () => {
  it('output - an unreachable service is named with its address and the transport reason', () => {
    const err = new RpcError(
      RpcStatus.UNAVAILABLE,
      'No connection established. Last error: Error: connect ECONNREFUSED 127.0.0.1:7061. Resolution note: ',
    );
    const failure = toFailure(err, { service: 'registry', address: '127.0.0.1:7061' });
    expect(failure).toEqual({
      code: 'UNAVAILABLE',
      message:
        'registry at 127.0.0.1:7061 is not reachable (connect ECONNREFUSED 127.0.0.1:7061); is the stack up? try `tollgate status`',
      details: [],
      exitCode: 1,
    });
  });

  it('output - gRPC errors keep their Tollgate code and details; others use the status name', () => {
    const denied = new RpcError(RpcStatus.PERMISSION_DENIED, 'may not apply policies', {
      tollgateCode: 'POLICY_DENIED',
      details: [{ path: 'spec', message: 'no', expected: '', found: 'x' }],
    });
    expect(toFailure(denied)).toMatchObject({
      code: 'POLICY_DENIED',
      details: [{ path: 'spec', message: 'no', found: 'x' }],
      exitCode: 1,
    });
    expect(toFailure(new RpcError(RpcStatus.DEADLINE_EXCEEDED, 'slow')).code).toBe(
      'DEADLINE_EXCEEDED',
    );
    expect(toFailure(new TollgateError('NOT_FOUND', 'no such resource')).code).toBe('NOT_FOUND');
    expect(toFailure(toolCallError({ code: 'UNKNOWN_TOOL', message: 'no tool' })).code).toBe(
      'UNKNOWN_TOOL',
    );
    expect(toFailure(new Error('boom'))).toMatchObject({ code: 'INTERNAL', message: 'boom' });
  });

  it('output - usage errors exit 2, other CLI errors 1; the line names the code once', () => {
    expect(usageError('bad flag').exitCode).toBe(2);
    expect(new CliError('NO_ISSUER', 'no key').exitCode).toBe(1);
    expect(failureLine(toFailure(usageError("unknown command 'x'")))).toBe(
      "tollgate: unknown command 'x'",
    );
    expect(failureLine(toFailure(new CliError('NO_ISSUER', 'no key\nat all')))).toBe(
      'tollgate: NO_ISSUER: no key at all',
    );
  });
});
