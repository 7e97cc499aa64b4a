import { describe, expect, it } from 'vitest';
import { TollgateError } from '@tollgate/core';
import { PAGE_SIZE } from '@tollgate/kit';
import { checkRequest } from '../src/requests.js';

function problemsOf(run: () => unknown): { message: string; details: unknown[] } {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(TollgateError);
    expect((err as TollgateError).code).toBe('INVALID_ARGUMENT');
    return { message: (err as TollgateError).message, details: (err as TollgateError).details };
  }
  throw new Error('expected the request to be refused');
}

describe('request checks', () => {
  it('requests - every problem is reported at once, the first in the message', () => {
    const { message, details } = problemsOf(() =>
      checkRequest((p) => {
        p.resourceName('name', '');
        p.scopePart('tenant', 'Team A');
        p.version('to_version', 0);
      }),
    );
    expect(message).toBe('name: required (and 2 more)');
    expect(details).toEqual([
      {
        path: 'name',
        message: 'required',
        expected: 'a resource name such as es_orders',
        found: 'nothing',
      },
      {
        path: 'tenant',
        message: 'expected a name matching [a-z0-9][a-z0-9-]{0,62}, found "Team A"',
        expected: 'a name matching [a-z0-9][a-z0-9-]{0,62}',
        found: '"Team A"',
      },
      {
        path: 'to_version',
        message: 'expected a version number of 1 or more, found 0',
        expected: 'a version number of 1 or more',
        found: '0',
      },
    ]);
  });

  it('requests - names, labels, types, draft ids and texts', () => {
    expect(problemsOf(() => checkRequest((p) => p.resourceName('name', 'Orders'))).message).toBe(
      'name: expected a resource name matching [a-z][a-z0-9_]{2,62}, found "Orders"',
    );
    expect(
      problemsOf(() => checkRequest((p) => p.labels('labels', { 'Bad Key': 'x' }))).message,
    ).toBe(
      'labels["Bad Key"]: expected a label key matching [a-z][a-z0-9_./-]{0,62}, found "Bad Key"',
    );
    expect(problemsOf(() => checkRequest((p) => p.labels('labels', { ok: 'a\nb' }))).message).toBe(
      'labels["ok"]: expected one line of at most 256 characters, found a longer or multi-line value',
    );
    expect(
      problemsOf(() => checkRequest((p) => p.resourceType('type', 'postgres', ['elasticsearch'])))
        .message,
    ).toBe('type: expected one of elasticsearch, found "postgres"');
    expect(problemsOf(() => checkRequest((p) => p.draftId('draft_id', 'd-1'))).message).toBe(
      'draft_id: expected a draft id (a lowercase UUID), found "d-1"',
    );
    expect(problemsOf(() => checkRequest((p) => p.text('reason', 'x'.repeat(1001)))).message).toBe(
      'reason: expected at most 1000 characters, found 1001 characters',
    );
    expect(
      problemsOf(() => checkRequest((p) => p.descriptor('descriptor', undefined))).message,
    ).toBe('descriptor: required');
  });

  it('requests - valid values pass through; page sizes default and are capped', () => {
    const value = checkRequest((p) => ({
      name: p.resourceName('name', 'es_orders'),
      tenant: p.scopePart('tenant', ''),
      small: p.pageSize(0),
      large: p.pageSize(100_000),
      type: p.resourceType('type', '', ['elasticsearch']),
    }));
    expect(value).toEqual({
      name: 'es_orders',
      tenant: undefined,
      small: PAGE_SIZE.default,
      large: PAGE_SIZE.max,
      type: undefined,
    });
  });
});
