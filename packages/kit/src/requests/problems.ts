/**
 * Checks of request fields, before anything is read or written. Every problem of a request is
 * reported at once, each naming the field, what was expected and what was found. A service
 * extends `RequestProblems` with the checks of its own fields and makes its `checkRequest`
 * with `requestChecker`.
 */
import { TollgateError } from '@tollgate/core';
import type { ErrorDetail } from '@tollgate/core';
import { pageSize } from './page-token.js';
import type { PageLimits } from './page-token.js';

const RESOURCE_NAME = /^[a-z][a-z0-9_]{2,62}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MAX_TEXT = 1000;

/** Collects the problems of one request; `done()` throws them as one INVALID_ARGUMENT. */
export class RequestProblems {
  readonly #problems: ErrorDetail[] = [];

  /** A problem at `path`; the message defaults to "expected …, found …". */
  add(path: string, expected: string, found: string, message?: string): void {
    this.#problems.push({
      path,
      message: message ?? `expected ${expected}, found ${found}`,
      expected,
      found,
    });
  }

  /** A problem worded freely (expected and found are optional). */
  addDetail(detail: ErrorDetail): void {
    this.#problems.push(detail);
  }

  /** The problems collected so far. */
  get details(): readonly ErrorDetail[] {
    return this.#problems;
  }

  /** A required resource name. */
  resourceName(path: string, value: string): string {
    if (value === '') this.add(path, 'a resource name such as es_orders', 'nothing', 'required');
    else if (!RESOURCE_NAME.test(value))
      this.add(path, 'a resource name matching [a-z][a-z0-9_]{2,62}', shown(value));
    return value;
  }

  /** A required id of something stored (a lowercase UUID), e.g. `noun` "draft". */
  uuid(path: string, value: string, noun: string): string {
    if (value === '') this.add(path, `the id of ${article(noun)} ${noun}`, 'nothing', 'required');
    else if (!UUID.test(value))
      this.add(path, `${article(noun)} ${noun} id (a lowercase UUID)`, shown(value));
    return value;
  }

  /** Free text: at most `max` characters, no control characters but newlines and tabs. */
  text(path: string, value: string, max: number = MAX_TEXT): string {
    if (value.length > max)
      this.add(path, `at most ${max} characters`, `${value.length} characters`);
    else if (hasControlCharacter(value.replace(/[\n\t]/g, ' ')))
      this.add(path, 'text without control characters', 'control characters');
    return value;
  }

  /**
   * A required descriptor (a `google.protobuf.Struct`) of `kind`. Typed as present: when it is
   * absent, `done()` throws before the value can be used.
   */
  descriptor<T>(path: string, value: T | undefined, kind = 'Resource'): T {
    if (value === undefined)
      this.add(
        path,
        `a ${kind} descriptor (apiVersion, kind, metadata, spec)`,
        'nothing',
        'required',
      );
    return value as T;
  }

  /** A page size: 0 is the default, a larger one than allowed is capped (never refused). */
  pageSize(value: number, limits?: PageLimits): number {
    return pageSize(value, limits);
  }

  /**
   * Throws the collected problems, if any, as one INVALID_ARGUMENT error whose message is the
   * first problem (after `summary`, else its path) and how many more there are.
   */
  done(summary?: string): void {
    const [first, ...rest] = this.#problems;
    if (first === undefined) return;
    const more = rest.length === 0 ? '' : ` (and ${rest.length} more)`;
    throw new TollgateError(
      'INVALID_ARGUMENT',
      `${summary ?? first.path}: ${first.message}${more}`,
      {
        details: [...this.#problems],
      },
    );
  }
}

/**
 * A `checkRequest` for problems made by `make`: `check(p => …)` returns what the callback
 * returns, or throws every problem it found.
 */
export function requestChecker<P extends RequestProblems>(
  make: () => P,
): <T>(build: (problems: P) => T) => T {
  return (build) => {
    const problems = make();
    const value = build(problems);
    problems.done();
    return value;
  };
}

/** Checks one request with the common checks. */
export const checkRequest = requestChecker(() => new RequestProblems());

/** A found value as a problem shows it: quoted, and cut after 60 characters. */
export function shown(value: string): string {
  return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
}

/** Whether `text` holds a control character (DEL included). */
export function hasControlCharacter(text: string): boolean {
  return [...text].some((char) => char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f);
}

function article(noun: string): string {
  return /^[aeiou]/.test(noun) ? 'an' : 'a';
}
