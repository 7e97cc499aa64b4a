/**
 * The canonical encoding audit records are hashed over is core's `canonicalJson` — the one
 * encoding every Tollgate hash uses. Stored hashes depend on it never changing; core's
 * canonical tests pin its output with a golden vector.
 */
export { canonicalJson } from '@tollgate/core';
