import { describe, expect, it } from 'vitest';
import {
  checkDescriptorText,
  locateDetails,
  readDescriptorText,
} from '../src/backend/descriptor-text.js';
import { HttpProblem } from '../src/http/problem.js';

const POLICY = `apiVersion: tollgate.dev/v1
kind: Policy
metadata:
  name: p1
  tenant: team-a
spec:
  cedar: |
    forbid (principal, action, resource)
    when { context.limit >> 20 };
`;

function details(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    if (err instanceof HttpProblem) return err.details;
    throw err;
  }
  return undefined;
}

describe('descriptor text - YAML in, problems located', () => {
  it('descriptor text - a YAML syntax error has its line and column', () => {
    expect(
      details(() => readDescriptorText('kind: Resource\nmetadata: [a\n', 'Resource')),
    ).toMatchObject([{ line: expect.any(Number), column: expect.any(Number) }]);
  });

  it('descriptor text - another kind, several documents or an empty text are refused before any service is asked', () => {
    expect(details(() => readDescriptorText(POLICY, 'Resource'))).toEqual([
      { path: 'kind', message: 'expected "Resource", found "Policy"', line: 2, column: 7 },
    ]);
    expect(details(() => readDescriptorText(`${POLICY}---\n${POLICY}`, 'Policy'))).toEqual([
      {
        path: '',
        message: 'a second document starts here: paste one descriptor at a time',
        line: 10,
        column: 1,
      },
    ]);
    expect(details(() => readDescriptorText('  ', 'Policy'))).toMatchObject([{ path: 'yaml' }]);
    expect(details(() => readDescriptorText(42, 'Policy'))).toMatchObject([{ path: 'yaml' }]);
  });

  it('descriptor text - a service’s path is located at its node; a Cedar line inside the block scalar too', () => {
    const text = readDescriptorText(POLICY, 'Policy');
    expect(text.locate('metadata.name')).toEqual({ line: 4, column: 9 });
    expect(text.locate('metadata.nope')).toEqual({ line: 4, column: 3 });
    expect(text.locateInside('spec.cedar', 2, 22)).toEqual({ line: 9, column: 26 });
    expect(
      locateDetails(text, [
        { path: 'spec.cedar', message: 'line 2, column 22: unexpected token' },
        { path: 'metadata.name', message: 'taken' },
      ]),
    ).toEqual([
      { path: 'spec.cedar', message: 'line 2, column 22: unexpected token', line: 9, column: 26 },
      { path: 'metadata.name', message: 'taken', line: 4, column: 9 },
    ]);
  });

  it('descriptor text - core’s validation problems come with their line', () => {
    const problems = checkDescriptorText(POLICY.replace('name: p1', 'name: P!'), 'Policy');
    expect(problems).toContainEqual(expect.objectContaining({ path: 'metadata.name', line: 4 }));
  });
});
