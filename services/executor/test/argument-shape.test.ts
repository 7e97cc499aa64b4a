import { describe, expect, it } from 'vitest';
import { isTollgateError } from '@tollgate/core';
import {
  ARGUMENT_LIMITS,
  MAX_REPORTED_PROBLEMS,
  refuseOversizedArguments,
  reportedProblems,
} from '../src/pipeline/argument-shape.js';

function refusal(args: unknown) {
  try {
    refuseOversizedArguments(args);
  } catch (err) {
    if (isTollgateError(err)) return err;
    throw err;
  }
  return undefined;
}

function nested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: 1 };
  for (let i = 1; i < levels; i++) value = { deeper: value };
  return value;
}

describe('argument shape - refused before full validation', () => {
  it('argument shape - ordinary tool arguments pass', () => {
    expect(
      refusal({
        filters: [{ field: 'status', op: 'in', value: Array.from({ length: 100 }, String) }],
        fields: ['id', 'status'],
        limit: 10,
      }),
    ).toBeUndefined();
  });

  it('argument shape - an array longer than any tool takes is refused, naming its path and length', () => {
    const err = refusal({ filters: Array.from({ length: 65_000 }, () => ({})) });
    expect(err?.code).toBe('ARGUMENTS_INVALID');
    expect(err?.details).toEqual([
      {
        path: 'filters',
        message: 'array too long',
        expected: `at most ${ARGUMENT_LIMITS.maxArrayItems} items`,
        found: '65000 items',
      },
    ]);
  });

  it('argument shape - nesting beyond the limit is refused at the level where it goes too deep', () => {
    expect(refusal(nested(ARGUMENT_LIMITS.maxDepth))).toBeUndefined();
    const err = refusal(nested(ARGUMENT_LIMITS.maxDepth + 1));
    expect(err?.details[0]).toMatchObject({ message: 'nested too deeply' });
    expect(err?.details[0]?.path.split('.')).toHaveLength(ARGUMENT_LIMITS.maxDepth);
  });

  it('argument shape - many arrays each under the item limit still hit the cap on values in all', () => {
    const wide = Object.fromEntries(
      Array.from({ length: 30 }, (_, i) => [`f${i}`, Array.from({ length: 999 }, () => 0)]),
    );
    expect(refusal(wide)?.details[0]).toMatchObject({
      path: '',
      message: `more than ${ARGUMENT_LIMITS.maxValues} values in all`,
    });
  });

  it('argument shape - problems reported are capped and the message counts them all', () => {
    const many = Array.from({ length: 65 }, (_, i) => ({ path: `filters[${i}]`, message: 'x' }));
    const reported = reportedProblems(many);
    expect(reported.details).toHaveLength(MAX_REPORTED_PROBLEMS);
    expect(reported.count).toBe(`65 problems (the first ${MAX_REPORTED_PROBLEMS} in details)`);
    expect(reportedProblems(many.slice(0, 1)).count).toBe('1 problem');
  });
});
