import type { Operation } from '@tollgate/core';

/** The operations a resource's tools are named for (`<resource>_<operation>`). */
export const OPERATIONS: readonly Operation[] = ['search', 'get', 'count', 'aggregate', 'write'];
