import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { Logger } from '@tollgate/kit';
import { authorize } from './callout.js';
import type { CalloutDeps } from './callout.js';

/** The subject the server sends authorization requests to (in the callout's account). */
export const AUTH_CALLOUT_SUBJECT = '$SYS.REQ.USER.AUTH';

/**
 * Answers authorization requests. Not a queue group: every callout on the bus sees every
 * request and answers for the tokens of issuers it trusts (the server takes the first answer);
 * each decision is logged with the principal (let in) or the reason (refused), never the token.
 */
export function serveCallout(
  nc: NatsConnection,
  deps: CalloutDeps & { logger: Logger },
): Subscription {
  const { logger } = deps;
  return nc.subscribe(AUTH_CALLOUT_SUBJECT, {
    callback: (err, msg) => {
      if (err !== null) {
        logger.error({ err: { message: err.message } }, 'auth callout subscription failed');
        return;
      }
      void authorize(msg.data, deps).then(
        (decision) => {
          if (decision.response === undefined) {
            logger.debug({ reason: decision.reason }, 'left to another callout');
            return;
          }
          msg.respond(decision.response);
          if (decision.principal)
            logger.info(
              { role: decision.role, principal: decision.principal },
              'connection authenticated',
            );
          else logger.info({ reason: decision.reason }, 'connection refused');
        },
        (cause: unknown) =>
          logger.warn(
            { err: { message: (cause as Error).message } },
            'authorization request ignored',
          ),
      );
    },
  });
}
