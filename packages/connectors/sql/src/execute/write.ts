import { TollgateError } from '@tollgate/core';

import type { SqlStatement, SqlWriteRequest } from '../native.js';
import type { SqlResult } from '../shape/shape.js';

/** What one statement of a write did: the rows it changed, the key the server assigned. */
export interface SqlWritten {
  affected: number;
  generatedKey?: Record<string, unknown>;
}

/**
 * The statements of a write, inside the transaction the driver opened: the update by primary
 * key first, the insert when the update changed nothing, `NOT_FOUND` when neither applies (the
 * driver rolls back on any throw). `run` sends one statement and reports what it did.
 */
export async function writeRow(
  request: SqlWriteRequest,
  run: (statement: SqlStatement, insert: boolean) => Promise<SqlWritten>,
): Promise<SqlResult> {
  if (request.update !== undefined) {
    const updated = await run(request.update, false);
    if (updated.affected > 0) return { rows: [], affected: updated.affected, wrote: 'updated' };
  }
  if (request.insert !== undefined) {
    const inserted = await run(request.insert, true);
    return {
      rows: [],
      affected: inserted.affected,
      wrote: 'created',
      ...(inserted.generatedKey === undefined ? {} : { generatedKey: inserted.generatedKey }),
    };
  }
  throw new TollgateError(
    'NOT_FOUND',
    'No row with that key (or it is outside what you may change).',
  );
}
