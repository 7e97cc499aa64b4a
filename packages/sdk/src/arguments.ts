import type { ErrorDetail } from '@tollgate/core';

const MAX_DEPTH = 32;
const MAX_PROBLEMS = 20;

/**
 * Where `args` is not plain JSON (a protobuf Struct can carry nothing else): not an object at
 * the top, `undefined`, non-finite numbers, functions, class instances, too deep. Paths are
 * JSON Pointers, as in the executor's errors. Empty when the arguments can be sent.
 */
export function checkArguments(args: unknown): ErrorDetail[] {
  if (!isPlainObject(args)) {
    return [
      {
        path: '',
        message: 'arguments must be a JSON object',
        expected: 'object',
        found: kindOf(args),
      },
    ];
  }
  const problems: ErrorDetail[] = [];
  walk(args, '', 0, problems);
  return problems.slice(0, MAX_PROBLEMS);
}

function walk(value: unknown, path: string, depth: number, problems: ErrorDetail[]): void {
  if (problems.length >= MAX_PROBLEMS) return;
  if (depth > MAX_DEPTH) {
    problems.push({ path, message: `nested deeper than ${MAX_DEPTH} levels` });
    return;
  }
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (!Number.isFinite(value))
      problems.push({ path, message: 'not a finite number', found: String(value) });
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, i) => walk(item, `${path}/${i}`, depth + 1, problems));
    return;
  }
  if (isPlainObject(value)) {
    for (const [key, child] of Object.entries(value)) {
      walk(
        child,
        `${path}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`,
        depth + 1,
        problems,
      );
    }
    return;
  }
  problems.push({ path, message: 'not a JSON value', expected: 'JSON', found: kindOf(value) });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'object') return value.constructor?.name ?? 'object';
  return typeof value;
}
