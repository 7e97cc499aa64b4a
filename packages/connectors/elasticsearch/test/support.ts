import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';

import { Client } from '@elastic/elasticsearch';
import { parseCredentialSecret } from '@tollgate/core';
import type { CredentialResolver } from '@tollgate/core';

/** The Elasticsearch deploy/local starts. */
export const ES_URL = process.env['TOLLGATE_ES_URL'] ?? 'http://127.0.0.1:9200';

/** A unique, lowercase index-name prefix for one test file. */
export function uniquePrefix(): string {
  return `tg_test_${randomBytes(4).toString('hex')}`;
}

/** An admin client for setting up and tearing down test indices (not the code under test). */
export function adminClient(): Client {
  return new Client({ node: ES_URL });
}

/**
 * A minimal resolver for tests: `env://VAR` reads the variable, `file://path` reads the file;
 * both hold the secret format `parseCredentialSecret` documents.
 */
export const testCredentials: CredentialResolver = async (ref) => {
  if (ref.startsWith('env://')) {
    const value = process.env[ref.slice('env://'.length)];
    if (value === undefined) throw new Error(`unset ${ref}`);
    return parseCredentialSecret(value);
  }
  if (ref.startsWith('file://'))
    return parseCredentialSecret(await readFile(ref.slice('file://'.length), 'utf8'));
  throw new Error(`unsupported ref scheme in ${ref}`);
};

/** Deletes every index starting with the prefix. */
export async function dropIndices(client: Client, prefix: string): Promise<void> {
  await client.indices.delete({
    index: `${prefix}*`,
    ignore_unavailable: true,
    allow_no_indices: true,
  });
}
