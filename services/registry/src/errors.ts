import { TollgateError } from '@tollgate/core';
import type { ResourceRef } from './scope.js';

/**
 * A request that is well-formed but cannot apply to the current state (an expired or decided
 * draft, a rollback to a deletion); retrying the same request will not help.
 */
export function preconditionFailed(message: string, path: string): TollgateError {
  return new TollgateError('FAILED_PRECONDITION', message, { details: [{ path, message }] });
}

export function describeRef(ref: ResourceRef): string {
  return `"${ref.name}" in ${ref.tenant}/${ref.environment}`;
}

export function resourceNotFound(ref: ResourceRef): TollgateError {
  return new TollgateError('NOT_FOUND', `Resource ${describeRef(ref)} does not exist.`);
}

export function versionNotFound(ref: ResourceRef, version: number, latest: number): TollgateError {
  return new TollgateError(
    'NOT_FOUND',
    `Resource ${describeRef(ref)} has no version ${version} (the latest is ${latest}).`,
  );
}

export function resourceDeleted(ref: ResourceRef, version: number): TollgateError {
  return new TollgateError(
    'NOT_FOUND',
    `Resource ${describeRef(ref)} was deleted (version ${version}); ask for a specific version to read its history.`,
  );
}

/** The current version is not the one the caller expected. */
export function versionConflict(
  ref: ResourceRef,
  current: number,
  expected: number,
): TollgateError {
  const message =
    expected === 0
      ? `Resource ${describeRef(ref)} already exists (version ${current}); expected_version 0 means it must not exist.`
      : current === 0
        ? `Resource ${describeRef(ref)} does not exist yet, but expected_version is ${expected}.`
        : `Resource ${describeRef(ref)} is at version ${current}, not the expected version ${expected}; read it again and retry.`;
  return new TollgateError('VERSION_CONFLICT', message, {
    details: [
      { path: 'expected_version', message, expected: String(current), found: String(expected) },
    ],
  });
}

/** Another change committed between reading the current version and writing the next one. */
export function concurrentChange(ref: ResourceRef, from: number): TollgateError {
  return new TollgateError(
    'VERSION_CONFLICT',
    `Resource ${describeRef(ref)} was changed concurrently (it was at version ${from}); read it again and retry.`,
  );
}

export function rollbackToDeletion(ref: ResourceRef, version: number): TollgateError {
  return preconditionFailed(
    `Version ${version} of "${ref.name}" is a deletion; roll back to a version before it.`,
    'to_version',
  );
}

export function alreadyCurrent(ref: ResourceRef, version: number): TollgateError {
  const message = 'is already the current version';
  return new TollgateError(
    'INVALID_ARGUMENT',
    `to_version: ${version} ${message} of "${ref.name}".`,
    {
      details: [
        {
          path: 'to_version',
          message,
          expected: `a version before ${version}`,
          found: String(version),
        },
      ],
    },
  );
}

/** Agents and policies are applied to the policy service, not stored here. */
export function notAResource(kind: string): TollgateError {
  const message = `the registry stores Resource descriptors; apply ${kind} descriptors to the policy service`;
  return new TollgateError('INVALID_ARGUMENT', `descriptor.kind: ${message}`, {
    details: [{ path: 'kind', message, expected: 'Resource', found: JSON.stringify(kind) }],
  });
}
