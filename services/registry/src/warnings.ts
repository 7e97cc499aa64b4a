import type { OperationSpec, ResourceDescriptor } from '@tollgate/core';

/** A non-fatal observation about a descriptor. */
export interface Warning {
  /** Stable code, e.g. `NO_RETURNABLE_FIELDS`. */
  code: string;
  /** Path in the descriptor (may be empty). */
  path: string;
  message: string;
}

/**
 * What an operator should know about a descriptor that is valid but probably not intended;
 * `operations` are the ones its kind offers for it.
 */
export function applyWarnings(
  descriptor: ResourceDescriptor,
  operations: readonly OperationSpec[],
): Warning[] {
  const fields = Object.values(descriptor.spec.schema.fields);
  const warnings: Warning[] = [];
  const answersWithFields = operations.some((operation) => operation.returnsFields === true);
  if (answersWithFields && !fields.some((field) => field.returnable === true)) {
    warnings.push({
      code: 'NO_RETURNABLE_FIELDS',
      path: 'spec.schema.fields',
      message:
        'No field is returnable: agents can filter and count, but every result row will be empty.',
    });
  }
  return warnings;
}
