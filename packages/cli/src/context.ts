import { userInfo } from 'node:os';
import { createClient } from '@tollgate/contracts';
import type { RpcClient } from '@tollgate/contracts';
import type { DescService } from '@bufbuild/protobuf';
import type { Principal } from '@tollgate/core';
import type { TollgateClient } from '@tollgate/sdk';
import { CliError, toFailure, usageError } from './errors.js';
import type { Failure } from './errors.js';
import { Output } from './output/output.js';
import type { CliIo } from './output/output.js';
import { resolveHome } from './stack/home.js';
import type { StackHome } from './stack/home.js';
import { loadIssuer, mintToken } from './stack/issuer.js';
import { natsUrl, serviceAddress } from './stack/services.js';
import type { ServiceName } from './stack/services.js';

/** Options every command takes. */
export interface GlobalOptions {
  json?: boolean;
  tenant?: string;
  env?: string;
}

/** The CLI's own agent, which operator commands act as. */
export const CLI_AGENT = 'tollgate-cli';
/** Lifetime of the tokens the CLI mints for itself, seconds. */
const OPERATOR_TOKEN_TTL = 600;
const NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/** A gRPC client and the service it talks to (to name it when unreachable). */
export interface ServiceClient<S extends DescService> {
  client: RpcClient<S>;
  service: ServiceName;
  address: string;
}

/** Runs a command with a context; what every command module registers its actions through. */
export type ActionRunner = <A extends unknown[]>(
  action: (ctx: CliContext, ...args: A) => Promise<void>,
) => (...args: A) => Promise<void>;

/**
 * Everything a command needs: where to write, the options, the stack's home, and principal
 * tokens minted from the dev issuer (or `TOLLGATE_TOKEN`). Clients opened through it are
 * closed when the command ends.
 */
export class CliContext {
  readonly io: CliIo;
  readonly out: Output;
  readonly home: StackHome;
  /** Set by a command that printed its result but must still exit non-zero. */
  exitCode: number | undefined;
  readonly #options: GlobalOptions;
  readonly #closers: Array<() => void | Promise<void>> = [];
  #lastService: { service: ServiceName; address: string } | undefined;
  readonly #operatorTokens = new Map<string, Promise<string>>();
  readonly #clients = new Map<string, { close(): void }>();

  constructor(io: CliIo, options: GlobalOptions) {
    this.io = io;
    this.#options = options;
    this.out = new Output(io, { json: options.json === true });
    this.home = resolveHome(io.env, io.cwd);
  }

  get env(): NodeJS.ProcessEnv {
    return this.io.env;
  }

  /** `--tenant`, else `TOLLGATE_TENANT`, else `team-a`. */
  tenant(): string {
    return checkName('--tenant', this.#options.tenant ?? this.env.TOLLGATE_TENANT ?? 'team-a');
  }

  /** `--env`, else `TOLLGATE_ENV`, else `prod`. */
  environment(): string {
    return checkName('--env', this.#options.env ?? this.env.TOLLGATE_ENV ?? 'prod');
  }

  /** True when `--tenant` or `TOLLGATE_TENANT` chose the tenant. */
  tenantChosen(): boolean {
    return this.#options.tenant !== undefined || this.env.TOLLGATE_TENANT !== undefined;
  }

  /** The person at the keyboard: `TOLLGATE_USER`, else the login name. */
  user(): string {
    const fromEnv = this.env.TOLLGATE_USER?.trim();
    if (fromEnv) return fromEnv;
    try {
      return userInfo().username || 'operator';
    } catch {
      return this.env.USER || 'operator';
    }
  }

  /**
   * The token operator commands send: `TOLLGATE_TOKEN` when set, else a short-lived one for
   * the CLI's agent (acting for the user) in `scope` (default: the chosen tenant/environment).
   */
  async operatorToken(scope: { tenant?: string; environment?: string } = {}): Promise<string> {
    const preset = this.env.TOLLGATE_TOKEN?.trim();
    if (preset) return preset;
    const key = `${scope.tenant ?? this.tenant()}/${scope.environment ?? this.environment()}`;
    let token = this.#operatorTokens.get(key);
    if (token === undefined) {
      token = this.agentToken(CLI_AGENT, {
        ...scope,
        user: this.user(),
        ttlSeconds: OPERATOR_TOKEN_TTL,
      });
      this.#operatorTokens.set(key, token);
    }
    return token;
  }

  /** The principal `agent` in the chosen (or given) tenant and environment; names are checked. */
  principal(
    agent: string,
    options: { tenant?: string; environment?: string; user?: string } = {},
  ): Principal {
    return {
      tenant: options.tenant ?? this.tenant(),
      agent: checkName('agent', agent),
      environment: options.environment ?? this.environment(),
      ...(options.user ? { user: options.user } : {}),
    };
  }

  /** A token for `agent` from the dev issuer. */
  async agentToken(
    agent: string,
    options: { tenant?: string; environment?: string; user?: string; ttlSeconds?: number } = {},
  ): Promise<string> {
    const principal = this.principal(agent, options);
    const keys = await loadIssuer(this.home);
    return (await mintToken(keys, principal, options.ttlSeconds ?? OPERATOR_TOKEN_TTL)).token;
  }

  /** A client of a control-plane service, with `token` (default: the operator's) on every call. */
  async grpc<S extends DescService>(
    service: ServiceName,
    descriptor: S,
    token?: string,
  ): Promise<ServiceClient<S>> {
    const address = serviceAddress(service, this.env);
    const bearer = token ?? (await this.operatorToken());
    const key = `${service}\n${bearer}`;
    this.#lastService = { service, address };
    const cached = this.#clients.get(key) as RpcClient<S> | undefined;
    if (cached) return { client: cached, service, address };
    const client = createClient(descriptor, address, {
      metadata: { authorization: `Bearer ${bearer}` },
      defaultDeadlineMs: 30_000,
    });
    this.#clients.set(key, client);
    this.#closers.push(() => client.close());
    return { client, service, address };
  }

  /** An SDK client over NATS for `agent`. */
  async agentClient(
    agent: string,
    options: { user?: string; timeoutMs?: number } = {},
  ): Promise<TollgateClient> {
    const token = await this.agentToken(agent, {
      ...(options.user ? { user: options.user } : {}),
      ttlSeconds: 3600,
    });
    const url = natsUrl(this.env);
    // The SDK (NATS, the model client) loads only for the commands that act as an agent.
    const { TollgateClient } = await import('@tollgate/sdk');
    let client: TollgateClient;
    try {
      client = await TollgateClient.connect({
        natsUrl: url,
        token,
        name: `tollgate-cli-${agent}`,
        ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
      });
    } catch (err) {
      throw new CliError(
        'UNAVAILABLE',
        `NATS is not reachable at ${url} (${toFailure(err).message}); is the stack up? try \`tollgate status\``,
        { cause: err },
      );
    }
    this.#closers.push(() => client.close());
    return client;
  }

  /** Registers something to close when the command ends. */
  onClose(close: () => void | Promise<void>): void {
    this.#closers.push(close);
  }

  /** The failure of `err`, naming the last service called when it was unreachable. */
  failureOf(err: unknown): Failure {
    return toFailure(err, this.#lastService ?? {});
  }

  async close(): Promise<void> {
    for (const close of this.#closers.splice(0).reverse()) {
      try {
        await close();
      } catch {
        // closing is best effort
      }
    }
  }
}

function checkName(what: string, value: string): string {
  if (!NAME.test(value)) {
    throw usageError(
      `${what}: expected lowercase letters, digits, "-" or "_" (at most 63), found ${JSON.stringify(value)}`,
    );
  }
  return value;
}
