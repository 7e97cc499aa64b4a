import { describe, expect, it } from 'vitest';
// Relative import on purpose: core depends on contracts, so contracts cannot depend on core.
import { ErrorCategory as CoreCategory, ErrorCodes } from '../../core/src/errors/codes.js';
import { ErrorCategory, ErrorCode } from '../src/gen/tollgate/common/v1/index.js';

function enumNames(values: Record<string, string | number>): string[] {
  return Object.keys(values)
    .filter((key) => Number.isNaN(Number(key)) && key !== 'UNSPECIFIED')
    .sort();
}

describe('error enums', () => {
  it('error enums - ErrorCode lists exactly the codes of core ErrorCodes', () => {
    expect(enumNames(ErrorCode)).toEqual(Object.keys(ErrorCodes).sort());
  });

  it('error enums - ErrorCategory lists exactly the categories of core', () => {
    expect(enumNames(ErrorCategory)).toEqual(
      Object.values(CoreCategory)
        .map((c) => c.toUpperCase())
        .sort(),
    );
  });

  it('error enums - zero values are UNSPECIFIED and codes are unique', () => {
    expect(ErrorCode.UNSPECIFIED).toBe(0);
    expect(ErrorCategory.UNSPECIFIED).toBe(0);
    const numbers = Object.values(ErrorCode).filter((v) => typeof v === 'number');
    expect(new Set(numbers).size).toBe(numbers.length);
  });
});
