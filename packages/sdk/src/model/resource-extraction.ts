/**
 * The scripted model's reading of a sentence that describes a resource: the first registered
 * kind whose rule-based reading recognises it gives the partial descriptor, as a model filling
 * the descriptor's JSON Schema would. Deliberately modest. Pure.
 */
import type { JsonObject } from '@bufbuild/protobuf';
import type { ResourceKind } from '@tollgate/core';
import { resourceKinds } from '@tollgate/kinds';

export function extractResourceFromText(
  text: string,
  kinds: readonly Pick<ResourceKind, 'readFromText'>[] = resourceKinds.list(),
): JsonObject {
  for (const kind of kinds) {
    const read = kind.readFromText?.(text);
    if (read !== undefined) return read as JsonObject;
  }
  return {};
}
