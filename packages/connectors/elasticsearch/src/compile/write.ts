import type { CompileContext, CompiledRequest, FieldType } from '@tollgate/core';

import type { EsWriteRequest } from '../native.js';
import { declaredField, rowFilterValue } from './filters.js';
import { visibleFields } from './projection.js';
import { compileId } from './read.js';
import { compiledRequest } from './request.js';
import { checkScalar, MAX_FILTER_STRING } from './values.js';
import { checkKeys, isPlainObject, oneOf, own, Violations } from '@tollgate/core';
import { esSpec } from '../kind/spec.js';

export const MAX_DOCUMENT_FIELDS = 100;
export const MAX_TEXT_LENGTH = 8192;
export const MAX_ARRAY_VALUES = 100;

const UNWRITABLE: ReadonlySet<FieldType> = new Set(['object', 'nested', 'geo_point']);

/** Fields this principal may write: those they may see (not dropped), of a scalar type. */
export function writableFields(ctx: CompileContext): string[] {
  return visibleFields(ctx).filter((name) => {
    const spec = declaredField(ctx, name);
    return spec !== undefined && !UNWRITABLE.has(spec.type);
  });
}

/**
 * `<name>_write` arguments → a partial update of one document by id. Keys are declared field
 * paths with type-checked values; the row filter field is pinned to the principal's value and
 * guards the write so no document outside the principal's rows can be touched.
 */
export function compileWrite(args: unknown, ctx: CompileContext): CompiledRequest<EsWriteRequest> {
  const violations = new Violations();
  if (!checkKeys(args, ['id', 'document'], '', violations)) violations.throwIfAny('write');
  const input = args as Record<string, unknown>;
  const id = compileId(own(input, 'id'), violations);
  const raw = own(input, 'document');
  const rowFilter = ctx.descriptor.spec.access.rowFilter;
  const pinned =
    rowFilter === undefined ? undefined : { field: rowFilter.field, value: rowFilterValue(ctx) };
  const document: Record<string, unknown> = {};

  if (!isPlainObject(raw)) {
    violations.add('document', 'expected an object of field values', 'object', raw);
  } else if (Object.keys(raw).length === 0 || Object.keys(raw).length > MAX_DOCUMENT_FIELDS) {
    const expected = `object with 1 to ${MAX_DOCUMENT_FIELDS} fields`;
    violations.add('document', `expected an ${expected}`, expected, raw);
  } else {
    const writable = writableFields(ctx);
    for (const key of Object.keys(raw).sort()) {
      const path = `document.${key}`;
      const value = raw[key];
      if (pinned !== undefined && key === pinned.field) {
        if (value !== pinned.value) {
          const message = `"${key}" is set by the platform; omit it or use your own value`;
          violations.add(path, message, JSON.stringify(pinned.value), value);
        }
        continue;
      }
      const spec = writable.includes(key) ? declaredField(ctx, key) : undefined;
      if (spec === undefined) {
        violations.add(path, `field "${key}" is not writable`, oneOf(writable), key);
        continue;
      }
      const max = spec.type === 'text' ? MAX_TEXT_LENGTH : MAX_FILTER_STRING;
      if (value === null) setPath(document, key, null);
      else if (Array.isArray(value)) {
        if (value.length > MAX_ARRAY_VALUES) {
          violations.add(
            path,
            `at most ${MAX_ARRAY_VALUES} values allowed`,
            `array of at most ${MAX_ARRAY_VALUES} values`,
            value,
          );
        } else {
          const items = value.map((item: unknown, index) =>
            checkScalar(item, spec, `${path}[${index}]`, violations, max),
          );
          setPath(document, key, items);
        }
      } else {
        setPath(document, key, checkScalar(value, spec, path, violations, max));
      }
    }
  }
  if (pinned !== undefined) setPath(document, pinned.field, pinned.value);
  violations.throwIfAny('write');

  const index = esSpec(ctx.descriptor).target.index;
  return compiledRequest(ctx, 'write', [], {
    api: 'write',
    index,
    id,
    document,
    refresh: 'wait_for',
    guard: pinned ?? null,
  });
}

/** Sets `a.b.c` as nested objects, defining own properties only. */
function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let node = target;
  for (const part of parts.slice(0, -1)) {
    const next = Object.hasOwn(node, part) ? node[part] : undefined;
    if (isPlainObject(next)) node = next;
    else {
      const child: Record<string, unknown> = {};
      define(node, part, child);
      node = child;
    }
  }
  define(node, parts[parts.length - 1] as string, value);
}

function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}
