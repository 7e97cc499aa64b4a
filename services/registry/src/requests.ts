/**
 * Checks of gRPC request fields, before anything is read or written. Every problem of a
 * request is reported at once, each naming the field, what was expected and what was found.
 */
import { TollgateError } from '@tollgate/core';
import type { ErrorDetail } from '@tollgate/core';

const RESOURCE_NAME = /^[a-z][a-z0-9_]{2,62}$/;
const SCOPE_NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;
const LABEL_KEY = /^[a-z][a-z0-9_./-]{0,62}$/;
const DRAFT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MAX_LABEL_VALUE = 256;
const MAX_REASON = 1000;
const MAX_SESSION_ID = 200;

/** Largest page a List or History returns, and the page size when a request names none. */
export const PAGE_SIZE = { default: 50, max: 500 } as const;

/** Collects the problems of one request; `done()` throws them as one INVALID_ARGUMENT. */
export class RequestProblems {
  readonly #problems: ErrorDetail[] = [];

  add(path: string, expected: string, found: string, message?: string): void {
    this.#problems.push({
      path,
      message: message ?? `expected ${expected}, found ${found}`,
      expected,
      found,
    });
  }

  /** A required resource name. */
  resourceName(path: string, value: string): string {
    if (value === '') this.add(path, 'a resource name such as es_orders', 'nothing', 'required');
    else if (!RESOURCE_NAME.test(value)) {
      this.add(path, 'a resource name matching [a-z][a-z0-9_]{2,62}', shown(value));
    }
    return value;
  }

  /** An optional tenant or environment (empty = the caller's). */
  scopePart(path: string, value: string): string | undefined {
    if (value === '') return undefined;
    if (!SCOPE_NAME.test(value))
      this.add(path, 'a name matching [a-z0-9][a-z0-9-]{0,62}', shown(value));
    return value;
  }

  /** A version number that must be at least 1. */
  version(path: string, value: number): number {
    if (value < 1) this.add(path, 'a version number of 1 or more', String(value));
    return value;
  }

  pageSize(value: number): number {
    if (value === 0) return PAGE_SIZE.default;
    return Math.min(value, PAGE_SIZE.max);
  }

  labels(path: string, labels: Record<string, string>): Record<string, string> {
    for (const [key, value] of Object.entries(labels)) {
      if (!LABEL_KEY.test(key)) {
        this.add(
          `${path}[${JSON.stringify(key)}]`,
          'a label key matching [a-z][a-z0-9_./-]{0,62}',
          shown(key),
        );
      } else if (value.length > MAX_LABEL_VALUE || hasControlCharacter(value)) {
        this.add(
          `${path}[${JSON.stringify(key)}]`,
          'one line of at most 256 characters',
          'a longer or multi-line value',
        );
      }
    }
    return labels;
  }

  /** An optional resource type among those this registry has connectors for. */
  resourceType(path: string, value: string, kinds: readonly string[]): string | undefined {
    if (value === '') return undefined;
    if (!kinds.includes(value)) this.add(path, `one of ${kinds.join(', ')}`, shown(value));
    return value;
  }

  /**
   * A required descriptor (a `google.protobuf.Struct`). Typed as present: when it is absent,
   * `done()` throws before the value can be used.
   */
  descriptor<T>(path: string, value: T | undefined): T {
    if (value === undefined) {
      this.add(
        path,
        'a Resource descriptor (apiVersion, kind, metadata, spec)',
        'nothing',
        'required',
      );
    }
    return value as T;
  }

  draftId(path: string, value: string): string {
    if (value === '') this.add(path, 'the id of a draft', 'nothing', 'required');
    else if (!DRAFT_ID.test(value)) this.add(path, 'a draft id (a lowercase UUID)', shown(value));
    return value;
  }

  text(path: string, value: string, max: number = MAX_REASON): string {
    if (value.length > max)
      this.add(path, `at most ${max} characters`, `${value.length} characters`);
    else if (hasControlCharacter(value.replace(/[\n\t]/g, ' '))) {
      this.add(path, 'text without control characters', 'control characters');
    }
    return value;
  }

  sessionId(path: string, value: string): string {
    return this.text(path, value, MAX_SESSION_ID);
  }

  /** Throws the collected problems, if any, as one INVALID_ARGUMENT error. */
  done(): void {
    const [first, ...rest] = this.#problems;
    if (first === undefined) return;
    const more = rest.length === 0 ? '' : ` (and ${rest.length} more)`;
    throw new TollgateError('INVALID_ARGUMENT', `${first.path}: ${first.message}${more}`, {
      details: this.#problems,
    });
  }
}

/** Checks one request: `check(p => …)` returns what the callback returns, or throws. */
export function checkRequest<T>(build: (problems: RequestProblems) => T): T {
  const problems = new RequestProblems();
  const value = build(problems);
  problems.done();
  return value;
}

function shown(value: string): string {
  return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
}

function hasControlCharacter(text: string): boolean {
  return [...text].some((char) => char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f);
}
