import type {
  CredentialResolver,
  DiscoveredSchema,
  DiscoverOptions,
  ResourceSpec,
} from '@tollgate/core';
import { TollgateError, withAttempts } from '@tollgate/core';

import { clientFor } from '../client.js';
import { esAttempts } from '../execute/attempts.js';
import { resolveCredential } from '../execute/credential.js';
import { DEFAULT_TIMEOUT_MS } from '../compile/request.js';
import type { ElasticsearchSpec } from '../kind/spec.js';
import { readMappingFields, toDiscoveredSchema } from './mapping.js';
import type { MappedSchema } from './mapping.js';

const TARGET = /^[a-z0-9*][a-z0-9_.*,-]{0,254}$/;

/**
 * Reads the live mapping behind an index, alias or pattern. Aliases and patterns resolve to
 * their concrete indices; a target matching nothing is `NOT_FOUND`.
 */
export async function discoverSchema(
  resourceSpec: ResourceSpec,
  credentials: CredentialResolver,
  options: DiscoverOptions = {},
): Promise<DiscoveredSchema> {
  return toDiscoveredSchema(await discoverMapping(resourceSpec, credentials, options));
}

/** The live mapping behind the spec's target, in Elasticsearch's own terms. */
export async function discoverMapping(
  resourceSpec: Pick<ResourceSpec, 'connection'> & { target?: unknown },
  credentials: CredentialResolver,
  options: DiscoverOptions = {},
): Promise<MappedSchema> {
  const { connection, target } = resourceSpec as unknown as ElasticsearchSpec;
  if (typeof target?.index !== 'string' || !TARGET.test(target.index)) {
    throw new TollgateError(
      'DESCRIPTOR_INVALID',
      `Target index "${String(target?.index).slice(0, 80)}" is not a valid index, alias or pattern.`,
    );
  }
  const label = `target "${target.index}"`;
  const credential = await resolveCredential(connection.credentialRef, credentials, label);
  const client = await clientFor(connection.endpoint, credential);
  const { value } = await withAttempts(
    {
      idempotent: true,
      timeoutMs: options.timeoutMs ?? connection.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    },
    esAttempts(label, (attempt) =>
      client.indices.getMapping(
        { index: target.index, expand_wildcards: 'open', allow_no_indices: true },
        attempt,
      ),
    ),
  );
  return readMappingFields(target.index, value);
}
