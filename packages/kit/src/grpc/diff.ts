import { fromJson } from '@bufbuild/protobuf';
import type { MessageInitShape } from '@bufbuild/protobuf';
import { ValueSchema } from '@bufbuild/protobuf/wkt';
import { DiffOperation } from '@tollgate/contracts/common/v1';
import type { DiffEntrySchema } from '@tollgate/contracts/common/v1';
import type { DiffEntry } from '@tollgate/core';

const OPERATIONS: Record<DiffEntry['op'], DiffOperation> = {
  added: DiffOperation.ADDED,
  removed: DiffOperation.REMOVED,
  changed: DiffOperation.CHANGED,
};

/** A diff (between resource versions, declarations, …) as the `DiffEntry` messages of the API. */
export function diffMessages(diff: DiffEntry[]): MessageInitShape<typeof DiffEntrySchema>[] {
  return diff.map((entry) => ({
    path: entry.path,
    operation: OPERATIONS[entry.op],
    ...(entry.before === undefined ? {} : { before: fromJson(ValueSchema, entry.before) }),
    ...(entry.after === undefined ? {} : { after: fromJson(ValueSchema, entry.after) }),
  }));
}
