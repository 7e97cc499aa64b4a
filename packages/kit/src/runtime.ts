import { Server } from '@grpc/grpc-js';
import type { NatsConnection } from '@nats-io/transport-node';
import type { TokenVerifier } from '@tollgate/core';
import { serveHealth } from '@tollgate/contracts';
import type { HealthReporter } from '@tollgate/contracts';
import { tokenVerifierFor } from './auth/issuers.js';
import {
  ConfigError,
  DEV_ISSUER_FILE,
  commonConfig,
  loadConfig,
  mongoConfig,
} from './config/config.js';
import type { ConfigOf, ConfigSpec } from './config/config.js';
import { createLogger } from './log/logger.js';
import type { Logger } from './log/logger.js';
import { startTelemetry } from './telemetry/telemetry.js';
import { busAuthFromEnv, connectBus, serviceInboxPrefix } from './bus/connect.js';
import { connectMongo } from './mongo/mongo.js';
import type { MongoHandle } from './mongo/mongo.js';
import { listenGrpc } from './grpc/server.js';
import type { Lifecycle } from './lifecycle/service.js';
import { runService } from './lifecycle/service.js';

type BaseConfig = ConfigOf<typeof commonConfig>;

/** Everything a service's composition root gets once its dependencies are connected. */
export interface ServiceRuntime<C> {
  name: string;
  config: C & BaseConfig;
  logger: Logger;
  /**
   * Verifies callers' tokens: the issuers of `TOLLGATE_TRUSTED_ISSUERS_FILE`, or — when it is
   * unset (local development) — the dev issuer at `DEV_ISSUER_FILE`, created on first use.
   */
  verifier: TokenVerifier;
  nc: NatsConnection;
  /** Present when the service asked for Mongo. */
  mongo: MongoHandle | undefined;
  /** Register gRPC services here during `start`; the server listens after `start` returns. */
  grpcServer: Server;
  health: HealthReporter;
  lifecycle: Lifecycle;
}

export interface BootOptions<S extends ConfigSpec> {
  name: string;
  /** The service's own settings, on top of the common ones. */
  config: S;
  /** Variable holding the gRPC listen address, and its default (e.g. `127.0.0.1:7061`). */
  grpcAddress: { env: string; default: string };
  mongo?: boolean;
  start(runtime: ServiceRuntime<ConfigOf<S>>): Promise<void>;
  env?: Record<string, string | undefined>;
}

/**
 * Boots a service: typed config (one error listing every problem), JSON logs, the token
 * verifier, telemetry, NATS, optional Mongo, gRPC with health; SIGTERM stops gRPC, drains NATS
 * and closes Mongo.
 */
export async function bootService<S extends ConfigSpec>(options: BootOptions<S>): Promise<void> {
  const env = options.env ?? process.env;
  const spec = {
    ...commonConfig,
    ...(options.mongo ? mongoConfig : {}),
    ...options.config,
  };
  let config: BaseConfig & { mongoUrl?: string } & ConfigOf<S>;
  try {
    config = loadConfig(options.name, spec as ConfigSpec, env) as typeof config;
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(
      `${JSON.stringify({ level: 'fatal', service: options.name, msg: err.message, problems: err.problems })}\n`,
    );
    process.exit(1);
  }
  const grpcAddress = env[options.grpcAddress.env] || options.grpcAddress.default;
  const logger = createLogger({ service: options.name, level: config.logLevel });

  await runService({
    name: options.name,
    logger,
    shutdownTimeoutMs: config.shutdownTimeoutMs,
    start: async (lifecycle) => {
      const verifier = await tokenVerifierFor(config.trustedIssuersFile, DEV_ISSUER_FILE, logger);
      const telemetry = startTelemetry({ service: options.name, env });
      lifecycle.add('telemetry', () => telemetry.shutdown());
      let mongo: MongoHandle | undefined;
      if (options.mongo) {
        mongo = await connectMongo(config.mongoUrl ?? '', { appName: options.name });
        const handle = mongo;
        lifecycle.add('mongo', () => handle.close());
      }
      const nc = await connectBus({
        url: config.natsUrl,
        name: options.name,
        logger,
        auth: busAuthFromEnv(options.name, env),
        inboxPrefix: serviceInboxPrefix(options.name),
      });
      lifecycle.add('nats', () => nc.drain());
      const grpcServer = new Server();
      const health = serveHealth(grpcServer);
      await options.start({
        name: options.name,
        config,
        logger,
        verifier,
        nc,
        mongo,
        grpcServer,
        health,
        lifecycle,
      });
      const grpc = await listenGrpc(grpcServer, grpcAddress, `set ${options.grpcAddress.env}`);
      lifecycle.add('grpc', () => grpc.stop());
      logger.info(
        { grpc: grpcAddress.replace(/:\d+$/, `:${grpc.port}`), nats: config.natsUrl },
        'ready',
      );
    },
  });
}
