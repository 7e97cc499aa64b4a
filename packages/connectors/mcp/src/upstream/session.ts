/**
 * One live connection to an upstream server for one resource version and tenant: the official
 * SDK client over stdio (the server sandboxed) or Streamable HTTP. On opening, on every
 * `notifications/tools/list_changed` and at most every `recheckMs` before a call, it lists the
 * upstream's tools and compares each selected tool with its pin: a tool whose definition
 * changed (or vanished) is withdrawn for every caller of the session at once.
 */
import type { Client } from '@modelcontextprotocol/client';
import { TollgateError } from '@tollgate/core';
import type { Credential, CredentialResolver } from '@tollgate/core';
import { definitionOf, diffDefinitions, pinOf } from '../kind/pin.js';
import type { DefinitionChange, ListedTool } from '../kind/pin.js';
import type { McpSpec } from '../kind/spec.js';
import { selectedTools } from '../kind/tools.js';
import { clientCredentials } from './oauth.js';
import type { BearerSource } from './oauth.js';
import { sandboxed } from './sandbox.js';

const DEFAULT_START_TIMEOUT_MS = 15_000;
/** Timeout of a token request when the connection names none, ms. */
const DEFAULT_TOKEN_TIMEOUT_MS = 5000;
export const DEFAULT_MAX_MESSAGE_BYTES = 8 * 1024 * 1024;
const RECHECK_MS = 30_000;

/** A withdrawn tool: why, and what changed. */
export interface Withdrawal {
  /** The upstream's tool name. */
  tool: string;
  /** The operation it is offered as. */
  operation: string;
  changes: DefinitionChange[];
  at: number;
}

/** Told when a session withdraws a tool (the connector reports it as an event). */
export type WithdrawalListener = (resource: string, withdrawal: Withdrawal) => void;

export class UpstreamSession {
  readonly #client: Client;
  readonly #spec: McpSpec;
  readonly #resource: string;
  readonly #onWithdraw: WithdrawalListener | undefined;
  readonly #withdrawn = new Map<string, Withdrawal>();
  #checkedAt = 0;
  #closed = false;
  /** The last transport failure (an oversized message, the process ending). */
  transportError: Error | undefined;
  /** When the process or connection started answering, ms since epoch, and how long it took. */
  readonly startedMs: number;

  private constructor(
    client: Client,
    spec: McpSpec,
    resource: string,
    startedMs: number,
    onWithdraw?: WithdrawalListener,
  ) {
    this.#client = client;
    this.#spec = spec;
    this.#resource = resource;
    this.startedMs = startedMs;
    this.#onWithdraw = onWithdraw;
  }

  /** Starts (or connects to) the server and checks the pins. */
  static async open(
    spec: McpSpec,
    resource: string,
    credentials: CredentialResolver,
    onWithdraw?: WithdrawalListener,
  ): Promise<UpstreamSession> {
    const started = Date.now();
    const { client, transport } = await connect(spec, resource, credentials);
    const session = new UpstreamSession(client, spec, resource, Date.now() - started, onWithdraw);
    transport.onerror = (err: Error) => {
      session.transportError = err;
    };
    client.onclose = () => {
      session.#closed = true;
    };
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      session.#checkedAt = 0;
      session.recheck().catch(() => undefined);
    });
    await session.recheck();
    return session;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** The SDK client (for discovery and calls). */
  get client(): Client {
    return this.#client;
  }

  /** Why `tool` (an upstream name) is withdrawn, if it is. */
  withdrawal(tool: string): Withdrawal | undefined {
    return this.#withdrawn.get(tool);
  }

  /** Lists the upstream's tools and withdraws every selected tool whose definition changed. */
  async recheck(force = true): Promise<void> {
    if (!force && Date.now() - this.#checkedAt < RECHECK_MS) return;
    const listed = (
      await this.#client.listTools(undefined, {
        cacheMode: 'bypass',
        timeout: this.#spec.connection.timeoutMs ?? 5000,
      })
    ).tools as ListedTool[];
    this.#checkedAt = Date.now();
    const byName = new Map(listed.map((tool) => [tool.name, tool]));
    for (const { upstream, operation, tool } of selectedTools(this.#spec)) {
      if (tool.definition === undefined || tool.pin === undefined || this.#withdrawn.has(upstream))
        continue;
      const live = byName.get(upstream);
      const liveDefinition = live === undefined ? undefined : definitionOf(live);
      if (liveDefinition !== undefined && pinOf(upstream, liveDefinition) === tool.pin) continue;
      const withdrawal = {
        tool: upstream,
        operation,
        changes: diffDefinitions(tool.definition, liveDefinition),
        at: Date.now(),
      };
      this.#withdrawn.set(upstream, withdrawal);
      this.#onWithdraw?.(this.#resource, withdrawal);
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#client.close().catch(() => undefined);
  }
}

/** Opens the SDK client on the spec's transport; the SDK is loaded on first use. */
export async function connect(
  spec: McpSpec,
  resource: string,
  credentials: CredentialResolver,
): Promise<{ client: Client; transport: { onerror?: (err: Error) => void } }> {
  const sdk = await import('@modelcontextprotocol/client');
  const client = new sdk.Client({ name: 'tollgate', version: '1.0.0' }, { capabilities: {} });
  const { connection } = spec;
  const timeout = spec.sandbox?.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  let transport;
  if (connection.command !== undefined) {
    const env: Record<string, string> = {};
    for (const [name, ref] of Object.entries(connection.command.env ?? {})) {
      env[name] = secretOf(await resolve(credentials, ref, resource), resource);
    }
    const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
    const run = sandboxed(connection.command, spec.sandbox, env);
    transport = new StdioClientTransport({
      command: run.command,
      args: run.args,
      env: run.env,
      stderr: 'ignore',
      maxBufferSize: connection.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
    });
  } else if (connection.url !== undefined) {
    const headers: Record<string, string> = {};
    if (connection.credentialRef !== undefined) {
      headers.authorization = `Bearer ${secretOf(await resolve(credentials, connection.credentialRef, resource), resource)}`;
    }
    let authProvider: BearerSource | undefined;
    if (connection.oauth !== undefined) {
      authProvider = clientCredentials({
        oauth: connection.oauth,
        serverUrl: connection.url,
        resource,
        credentials,
        timeoutMs: connection.timeoutMs ?? DEFAULT_TOKEN_TIMEOUT_MS,
      });
      // Taken before connecting, so a refused client is said as such, not as a silent server.
      await authProvider.token();
    }
    transport = new sdk.StreamableHTTPClientTransport(new URL(connection.url), {
      requestInit: { headers },
      ...(authProvider === undefined ? {} : { authProvider }),
    });
  } else {
    throw new TollgateError('INTERNAL', `resource ${resource} names neither a command nor a url`);
  }
  try {
    await client.connect(transport, { timeout });
  } catch (err) {
    await client.close().catch(() => undefined);
    throw new TollgateError(
      'UPSTREAM_UNAVAILABLE',
      `The MCP server of ${resource} did not start or answer initialize within ${timeout} ms (${errorName(err)}).`,
    );
  }
  return { client, transport };
}

async function resolve(
  credentials: CredentialResolver,
  ref: string,
  resource: string,
): Promise<Credential> {
  try {
    return await credentials(ref);
  } catch {
    const scheme = ref.split(':')[0] ?? 'credential';
    throw new TollgateError(
      'CREDENTIAL_UNAVAILABLE',
      `A credential of ${resource} (${scheme}://…) could not be resolved.`,
    );
  }
}

function secretOf(credential: Credential, resource: string): string {
  switch (credential.kind) {
    case 'apiKey':
      return credential.apiKey;
    case 'bearer':
      return credential.token;
    default:
      throw new TollgateError(
        'CREDENTIAL_UNAVAILABLE',
        `A credential of ${resource} is a ${credential.kind} credential; an MCP server takes a token or key.`,
      );
  }
}

/** The error's kind, never its message (which may quote the server's output). */
export function errorName(err: unknown): string {
  if (typeof err === 'object' && err !== null) {
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' || typeof code === 'number') return String(code);
    return (err as { name?: string }).name ?? 'error';
  }
  return 'error';
}
