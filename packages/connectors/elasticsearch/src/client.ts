import { createHash } from 'node:crypto';

import type * as ClientLibraryModule from '@elastic/elasticsearch';
import type { Client, ClientOptions } from '@elastic/elasticsearch';

type ClientLibrary = typeof ClientLibraryModule;
import { TollgateError } from '@tollgate/core';
import type { Credential } from '@tollgate/core';

/** Most distinct (endpoint, credential) clients kept open; the least recently used is closed. */
export const MAX_CLIENTS = 32;
/** Largest upstream response accepted, bytes (shaping cuts far below this anyway). */
export const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

// Keyed by endpoint and a digest of the credential, so the key itself holds no secret.
const clients = new Map<string, Client>();

// The client library is loaded on first use: reading the kind (the CLI, the SDK) stays cheap.
let library: Promise<ClientLibrary> | undefined;

/**
 * The pooled client for an endpoint and credential. Clients never retry on their own (the
 * executor decides), keep connections alive between calls and trace nothing themselves.
 */
export async function clientFor(endpoint: string, credential: Credential): Promise<Client> {
  library ??= import('@elastic/elasticsearch');
  const loaded = await library;
  untraced ??= untracedTransport(loaded);
  return pooledClient(loaded.Client, untraced, endpoint, credential);
}

type TransportClass = NonNullable<ClientOptions['Transport']>;
let untraced: TransportClass | undefined;

/**
 * The client's transport with its own spans off: they carry every path parameter (a document
 * id, the index names) as attributes, and a document id is an argument. `execute/span.ts`
 * traces each attempt instead, without them.
 */
function untracedTransport({ SniffingTransport }: ClientLibrary): TransportClass {
  return class UntracedTransport extends SniffingTransport {
    constructor(options: ConstructorParameters<typeof SniffingTransport>[0]) {
      super({ ...options, openTelemetry: { enabled: false } });
    }
  };
}

function pooledClient(
  ClientClass: typeof Client,
  Transport: TransportClass,
  endpoint: string,
  credential: Credential,
): Client {
  const node = checkEndpoint(endpoint);
  const key = `${node}\n${createHash('sha256').update(JSON.stringify(credential)).digest('hex')}`;
  const cached = clients.get(key);
  if (cached !== undefined) {
    clients.delete(key);
    clients.set(key, cached);
    return cached;
  }
  const options: ClientOptions = {
    node,
    maxRetries: 0,
    requestTimeout: 30_000,
    compression: false,
    maxResponseSize: MAX_RESPONSE_BYTES,
    name: 'tollgate',
    Transport,
  };
  const auth = authOf(credential);
  const client = new ClientClass(auth === undefined ? options : { ...options, auth });
  clients.set(key, client);
  if (clients.size > MAX_CLIENTS) {
    const [oldestKey, oldest] = clients.entries().next().value as [string, Client];
    clients.delete(oldestKey);
    void oldest.close().catch(() => undefined);
  }
  return client;
}

/** Closes every pooled client (service shutdown, tests). */
export async function closeClients(): Promise<void> {
  const open = [...clients.values()];
  clients.clear();
  await Promise.all(open.map((client) => client.close().catch(() => undefined)));
}

function authOf(credential: Credential): ClientOptions['auth'] {
  switch (credential.kind) {
    case 'basic':
      return { username: credential.username, password: credential.password };
    case 'apiKey':
      return { apiKey: credential.apiKey };
    case 'bearer':
      return { bearer: credential.token };
    case 'none':
      return undefined;
  }
}

/** An http(s) URL without user info (credentials only ever come from the credential ref). */
export function checkEndpoint(endpoint: string): string {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new TollgateError('DESCRIPTOR_INVALID', 'Elasticsearch endpoint is not a valid URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TollgateError(
      'DESCRIPTOR_INVALID',
      'Elasticsearch endpoint must be an http or https URL.',
    );
  }
  if (url.username !== '' || url.password !== '') {
    throw new TollgateError(
      'DESCRIPTOR_INVALID',
      'Elasticsearch endpoint must not contain user info; use credentialRef.',
    );
  }
  return url.origin + url.pathname.replace(/\/$/, '');
}
