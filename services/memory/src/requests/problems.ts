/**
 * Input checks shared by every write: one INVALID_ARGUMENT listing every problem (field, what
 * was expected, what was found — never a secret), and the memory screen (no credentials, no
 * instructions to the model) over every stored text and value.
 */
import { TollgateError } from '@tollgate/core';
import { pageSize as kitPageSize } from '@tollgate/kit';
import type { ErrorDetail } from '@tollgate/core';
import { findInjection } from '@tollgate/core';
import type { InstructionContext } from '@tollgate/core';
import { findSecretValues, pointerJoin, secretReason } from '@tollgate/core';

/** Screening of reviewed capability content and reviewers' words, where tool names belong. */
export const TOOLS_EXPECTED: InstructionContext = { allowToolNames: true };

/** Collects problems with a request and throws them together. */
export class Problems {
  readonly details: ErrorDetail[] = [];

  add(path: string, message: string, expected?: string, found?: string): this {
    this.details.push({
      path,
      message,
      ...(expected !== undefined ? { expected } : {}),
      ...(found !== undefined ? { found } : {}),
    });
    return this;
  }

  /** Checks `value` against `pattern`, reporting a short preview of what was found. */
  match(path: string, value: string, pattern: RegExp, expected: string): this {
    if (!pattern.test(value)) this.add(path, `${path} is not valid`, expected, preview(value));
    return this;
  }

  text(path: string, value: string, options: { max: number; required?: boolean }): this {
    if (options.required && value.trim() === '') this.add(path, `${path} is required`, 'text');
    if (value.length > options.max) {
      this.add(path, `${path} is too long`, `at most ${options.max} characters`, `${value.length}`);
    }
    return this;
  }

  /**
   * Refuses credentials and instructions to the model anywhere in `value` (`context` tells the
   * instruction screen the tenant's tools, or that tool names are expected here).
   */
  screen(path: string, value: unknown, context: InstructionContext = {}): this {
    for (const hit of findSecretValues(value, path)) {
      this.add(
        hit.path,
        `${hit.path} looks like a credential (${hit.reason}); memory never stores secrets`,
        'no credentials, tokens or connection strings',
      );
    }
    for (const [at, text] of strings(value, path)) {
      const reason = findInjection(text, context);
      if (reason !== undefined) {
        this.add(
          at,
          `${at} reads as instructions to the model (${reason}); memory does not store instructions`,
          'a plain statement of fact',
        );
      }
    }
    return this;
  }

  get empty(): boolean {
    return this.details.length === 0;
  }

  throwIfAny(what: string): void {
    if (this.empty) return;
    const first = this.details[0]?.message ?? '';
    const more = this.details.length > 1 ? ` (and ${this.details.length - 1} more)` : '';
    throw new TollgateError('INVALID_ARGUMENT', `${what}: ${first}${more}.`, {
      details: this.details,
    });
  }
}

/** Every string (values and keys) in a JSON value, with its pointer. */
function* strings(value: unknown, path: string): Generator<[string, string]> {
  if (typeof value === 'string') {
    yield [path, value];
  } else if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) yield* strings(item, pointerJoin(path, i));
  } else if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      const at = pointerJoin(path, key);
      yield [at, key];
      yield* strings(child, at);
    }
  }
}

/** A short, printable rendering of a rejected value; never the value when it looks secret. */
export function preview(value: string): string {
  if (secretReason(value) !== undefined) return '<redacted>';
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
}

/** Throws INVALID_ARGUMENT for a single bad field. */
export function invalid(path: string, message: string, expected?: string, found?: string): never {
  const problems = new Problems().add(path, message, expected, found);
  problems.throwIfAny('Invalid request');
  throw new Error('unreachable');
}

/** Page size of memory's listings: 0 = 50; capped at 200. */
export function pageSize(requested: number): number {
  return kitPageSize(requested, { default: 50, max: 200 });
}
