/** Reading request parameters at the boundary: each one checked, with the field named when wrong. */
import { badRequest } from '../http/problem.js';

const NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;
const ID = /^[A-Za-z0-9_.:-]{1,128}$/;

/** A name (resource, agent, policy) from a path or query parameter. */
export function nameParam(value: string | null | undefined, field: string): string {
  if (typeof value !== 'string' || !NAME.test(value)) {
    throw badRequest(`${field} is not a name.`, [
      { path: field, message: 'not a name', expected: '[a-z0-9][a-z0-9_-]{0,62}' },
    ]);
  }
  return value;
}

/** An optional name: empty or absent is `''`. */
export function optionalName(value: string | null | undefined, field: string): string {
  return value === null || value === undefined || value === '' ? '' : nameParam(value, field);
}

/** An id (approval, call, candidate, session) from a path or query parameter. */
export function idParam(value: string | null | undefined, field: string): string {
  if (typeof value !== 'string' || !ID.test(value)) {
    throw badRequest(`${field} is not an id.`, [
      { path: field, message: 'not an id', expected: '[A-Za-z0-9_.:-]{1,128}' },
    ]);
  }
  return value;
}

/** A positive integer (a version). */
export function versionParam(value: unknown, field: string): number {
  const n = typeof value === 'string' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1 || n > 0xffffffff) {
    throw badRequest(`${field} is not a version.`, [
      { path: field, message: 'not a positive integer' },
    ]);
  }
  return n;
}

/** An optional version: absent or null is undefined. */
export function optionalVersion(value: unknown, field: string): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (value === 0) return 0;
  return versionParam(value, field);
}

/** A short free text (a reason). */
export function textParam(value: unknown, field: string, max = 2000): string {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string' || value.length > max) {
    throw badRequest(`${field} must be text of at most ${max} characters.`, [
      { path: field, message: 'not text' },
    ]);
  }
  return value;
}

/** A boolean flag. */
export function flag(value: unknown): boolean {
  return value === true || value === 'true' || value === '1';
}

/** A JSON object (tool arguments). */
export function objectParam(value: unknown, field: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw badRequest(`${field} must be a JSON object.`, [
      { path: field, message: 'not an object' },
    ]);
  }
  return value as Record<string, unknown>;
}

/** An optional RFC 3339 time. */
export function timeParam(value: string | null, field: string): Date | undefined {
  if (value === null || value === '') return undefined;
  const t = new Date(value);
  if (Number.isNaN(t.getTime())) {
    throw badRequest(`${field} is not a time.`, [{ path: field, message: 'not an RFC 3339 time' }]);
  }
  return t;
}
