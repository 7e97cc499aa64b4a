import { readFileSync } from 'node:fs';
import type { JsonObject } from '@bufbuild/protobuf';
import { usageError } from '../errors.js';

/** A positive integer flag value, or a usage error naming the flag. */
export function positiveInt(flag: string, value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < 1) {
    throw usageError(`${flag}: expected a positive integer, found ${JSON.stringify(value)}`);
  }
  return n;
}

/**
 * A JSON object given on the command line: inline text, or `@path` to read it from a file.
 * Anything else is a usage error saying what was wrong.
 */
export function jsonObjectArg(flag: string, value: string): JsonObject {
  let text = value;
  if (value.startsWith('@')) {
    const path = value.slice(1);
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      throw usageError(
        `${flag}: cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      );
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw usageError(`${flag}: not valid JSON (${(err as Error).message})`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    const found = Array.isArray(parsed) ? 'an array' : parsed === null ? 'null' : typeof parsed;
    throw usageError(`${flag}: expected a JSON object, found ${found}`);
  }
  return parsed as JsonObject;
}

/**
 * A point in time: an ISO-8601 timestamp, or a duration back from now (`90s`, `15m`, `2h`,
 * `7d`).
 */
export function timeArg(flag: string, value: string, now = Date.now()): Date {
  const relative = /^(\d+)(s|m|h|d)$/.exec(value.trim());
  if (relative) {
    const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[
      relative[2] as 's' | 'm' | 'h' | 'd'
    ];
    return new Date(now - Number(relative[1]) * unit);
  }
  const date = new Date(value);
  if (Number.isNaN(date.getTime()) || !/^\d{4}-\d{2}-\d{2}/.test(value.trim())) {
    throw usageError(
      `${flag}: expected an ISO-8601 time (2025-01-31T12:00:00Z) or a duration ago (15m, 2h, 7d), found ${JSON.stringify(value)}`,
    );
  }
  return date;
}

/** One of `allowed`, or a usage error listing them. */
export function oneOf<T extends string>(flag: string, value: string, allowed: readonly T[]): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw usageError(
    `${flag}: expected one of ${allowed.join(', ')}, found ${JSON.stringify(value)}`,
  );
}
