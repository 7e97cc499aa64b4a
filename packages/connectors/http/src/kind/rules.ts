/**
 * Rules of an http resource beyond its schema: the base URL's form, the document and token
 * URLs on the base URL's host, classes that only tighten, pinned values and paging parameters
 * that name the operation's own parameters.
 */
import { asRecord, checkEndpoint, joinPath, mismatch, problem } from '@tollgate/core';
import type { DescriptorProblem } from '@tollgate/core';
import { pagingParameters } from './arguments.js';
import { methodClass, tightens } from './operations.js';
import type { HttpOperation } from './spec.js';

/** The URL `target` names against the base URL, when it is on the same host and port. */
export function sameOrigin(baseUrl: string, target: string): URL | undefined {
  try {
    const base = new URL(baseUrl);
    const url = new URL(target, base.origin);
    return url.origin === base.origin ? url : undefined;
  } catch {
    return undefined;
  }
}

export function httpRules(descriptor: unknown): DescriptorProblem[] {
  const spec = asRecord(asRecord(descriptor)?.spec);
  const connection = asRecord(spec?.connection);
  const baseUrl = connection?.baseUrl;
  const problems: Array<DescriptorProblem | undefined> = [];
  if (typeof baseUrl !== 'string') return [];
  const endpoint = checkEndpoint('spec.connection.baseUrl', baseUrl);
  if (endpoint !== undefined) return [endpoint];
  const documentUrl = asRecord(spec?.document)?.url;
  if (typeof documentUrl === 'string' && sameOrigin(baseUrl, documentUrl) === undefined)
    problems.push(
      mismatch('spec.document.url', "a path or URL on the base URL's host", 'another host'),
    );
  const auth = asRecord(connection?.auth);
  if (typeof auth?.tokenUrl === 'string' && sameOrigin(baseUrl, auth.tokenUrl) === undefined)
    problems.push(
      mismatch(
        'spec.connection.auth.tokenUrl',
        "a path or URL on the base URL's host",
        'another host',
      ),
    );
  for (const [name, raw] of Object.entries(asRecord(spec?.operations) ?? {})) {
    const operation = asRecord(raw) as Partial<HttpOperation> | undefined;
    const request = operation?.request;
    if (operation === undefined || request === undefined) continue;
    const at = joinPath('spec.operations', name);
    if (operation.class !== undefined && !tightens(operation.class, request.method)) {
      problems.push(
        mismatch(
          joinPath(at, 'class'),
          `${methodClass(request.method)} or stricter (the method is ${request.method.toUpperCase()})`,
          operation.class,
        ),
      );
    }
    const parameters = new Set((request.parameters ?? []).map((p) => p.name));
    const bodyProperties = new Set(
      Object.keys(asRecord(asRecord(request.body?.schema)?.properties) ?? {}),
    );
    for (const key of Object.keys(operation.pinned ?? {})) {
      const known = key.startsWith('body.')
        ? bodyProperties.has(key.slice(5))
        : parameters.has(key);
      if (!known)
        problems.push(
          problem(
            joinPath(joinPath(at, 'pinned'), key),
            'names no parameter or body property of the operation',
          ),
        );
    }
    for (const param of pagingParameters(operation as HttpOperation)) {
      if (!parameters.has(param))
        problems.push(
          problem(
            joinPath(at, 'pagination'),
            `names ${JSON.stringify(param)}, not a parameter of the operation`,
          ),
        );
    }
  }
  return problems.filter((p) => p !== undefined);
}
