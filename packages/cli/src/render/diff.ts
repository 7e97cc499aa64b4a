import type { JsonValue } from '@bufbuild/protobuf';
import { toJson } from '@bufbuild/protobuf';
import { ValueSchema } from '@bufbuild/protobuf/wkt';
import { DiffOperation } from '@tollgate/contracts/common/v1';
import type { DiffEntry } from '@tollgate/contracts/common/v1';
import type { Style } from '../output/style.js';

/** One change between two versions of a descriptor, in plain JSON. */
export interface DiffLine {
  path: string;
  operation: 'added' | 'removed' | 'changed';
  before?: JsonValue;
  after?: JsonValue;
}

const OPERATIONS: Partial<Record<DiffOperation, DiffLine['operation']>> = {
  [DiffOperation.ADDED]: 'added',
  [DiffOperation.REMOVED]: 'removed',
  [DiffOperation.CHANGED]: 'changed',
};

/** The wire diff as plain lines; entries with no known operation are skipped. */
export function diffLines(entries: readonly DiffEntry[]): DiffLine[] {
  return entries.flatMap((entry) => {
    const operation = OPERATIONS[entry.operation];
    if (operation === undefined) return [];
    return [
      {
        path: entry.path,
        operation,
        ...(entry.before ? { before: toJson(ValueSchema, entry.before) } : {}),
        ...(entry.after ? { after: toJson(ValueSchema, entry.after) } : {}),
      },
    ];
  });
}

/**
 * `+ path: value`, `- path: value`, `~ path: before → after`, one per line, indented; past
 * `limit` lines, a count of the rest.
 */
export function renderDiff(lines: readonly DiffLine[], style: Style, limit = Infinity): string {
  const indent = '    ';
  const shown = lines.slice(0, limit);
  const rest = lines.length - shown.length;
  const text = shown
    .map((line) => {
      const path = line.path === '' ? '(document)' : line.path;
      switch (line.operation) {
        case 'added':
          return style.green(`${indent}+ ${path}: ${short(line.after)}`);
        case 'removed':
          return style.red(`${indent}- ${path}: ${short(line.before)}`);
        case 'changed':
          return style.yellow(`${indent}~ ${path}: ${short(line.before)} → ${short(line.after)}`);
      }
    })
    .join('\n');
  return rest > 0 ? `${text}\n${style.dim(`${indent}… ${rest} more`)}` : text;
}

/** A value on one line, cut at 100 characters. */
export function short(value: JsonValue | undefined, max = 100): string {
  if (value === undefined) return '(none)';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
