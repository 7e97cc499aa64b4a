/**
 * Operations as a resource kind declares them. Core never lists operations itself: every
 * operation a resource offers comes from its kind (`ResourceKind.operations`), and everything
 * downstream — tool names, Cedar actions, retries, MCP annotations, approvals — reads these.
 */

/**
 * What an operation does to the data behind the resource. `read` changes nothing; `write`
 * changes data; `destructive` removes or irreversibly changes it. Policy treats each class as a
 * group (a resource's `allowedRoles` grant its reads; writes need a grant and `readonly: false`).
 */
export type OperationClass = 'read' | 'write' | 'destructive';

export const OPERATION_CLASSES: readonly OperationClass[] = ['read', 'write', 'destructive'];

/**
 * Name of an operation: lowercase letter, then lowercase letters, digits or `_`. The tool is
 * `<resource>_<name>`; a grant names it as `<resource>.<name>`.
 */
export const OPERATION_NAME = /^[a-z][a-z0-9_]{0,62}$/;

/**
 * Names no operation may take: the Cedar action groups of the operation classes (`read`,
 * `change` holding write and destructive, `destroy`) and the field actions.
 */
export const RESERVED_OPERATION_NAMES: ReadonlySet<string> = new Set([
  'read',
  'change',
  'destroy',
  'view_field',
  'filter_field',
]);

/** Whether `name` can name an operation. */
export function isOperationName(name: unknown): name is string {
  return (
    typeof name === 'string' && OPERATION_NAME.test(name) && !RESERVED_OPERATION_NAMES.has(name)
  );
}

/** One operation of a resource version, as its kind declares it. */
export interface OperationSpec {
  /** `search`, `create_ticket`, …; matches `OPERATION_NAME`. */
  name: string;
  /**
   * The Cedar action id decisions are asked for (`Action::"search"`). Operations of the table
   * family share theirs across kinds; operations defined by the upstream use their name.
   */
  action: string;
  class: OperationClass;
  /**
   * Re-sending cannot do more than sending once (every read; writes the upstream declares
   * idempotent, such as a PUT). Only idempotent requests are retried.
   */
  idempotent: boolean;
  /**
   * Takes a `limit` argument bounded by the resource's `maxLimit` (and by policy): the policy
   * engine finds the largest limit a principal may ask for on it.
   */
  limited?: boolean;
  /**
   * Answers with the resource's declared fields, projected to the returnable ones (a table's
   * search and get, an API's records): with no field returnable its answers are empty.
   */
  returnsFields?: boolean;
}

/** True for operations that change data (write or destructive). */
export function changesData(operation: Pick<OperationSpec, 'class'>): boolean {
  return operation.class !== 'read';
}

/** The operation of a resource version named `name`, if the kind declares one. */
export function findOperation(
  operations: readonly OperationSpec[],
  name: string,
): OperationSpec | undefined {
  return operations.find((operation) => operation.name === name);
}
