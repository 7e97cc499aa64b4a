export { diffDocuments } from '@tollgate/core';
export type { DiffEntry } from '@tollgate/core';
