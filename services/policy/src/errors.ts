import { TollgateError } from '@tollgate/core';

/** The caller may not do this (role missing, own approval). */
export function forbidden(message: string): TollgateError {
  return new TollgateError('POLICY_DENIED', message);
}

export function notFound(message: string): TollgateError {
  return new TollgateError('NOT_FOUND', message);
}

/** The current version is not the one the caller expected. */
export function versionConflict(what: string, current: number, expected: number): TollgateError {
  const message =
    expected === 0
      ? `${what} already exists (version ${current}); expected_version 0 means it must not exist.`
      : current === 0
        ? `${what} does not exist yet, but expected_version is ${expected}.`
        : `${what} is at version ${current}, not the expected version ${expected}; read it again and retry.`;
  return new TollgateError('VERSION_CONFLICT', message, {
    details: [
      { path: 'expected_version', message, expected: String(current), found: String(expected) },
    ],
  });
}

/** Another change committed between reading the current version and writing the next one. */
export function concurrentChange(what: string, from: number): TollgateError {
  return new TollgateError(
    'VERSION_CONFLICT',
    `${what} was changed concurrently (it was at version ${from}); read it again and retry.`,
  );
}
