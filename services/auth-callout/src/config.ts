import { join } from 'node:path';
import { cfg } from '@tollgate/kit';

/** The auth callout's own settings, on top of the common ones. */
export const calloutConfig = {
  issuerFile: cfg.string(
    'TOLLGATE_AUTH_CALLOUT_ISSUER_FILE',
    'account NKey seed that signs the users it issues (the auth_callout issuer; empty: callout-issuer.nk beside the service credentials)',
    '',
  ),
  account: cfg.string(
    'TOLLGATE_AUTH_CALLOUT_ACCOUNT',
    'NATS account authenticated agents and subscribers join',
    'TOLLGATE',
  ),
  maxTtlSeconds: cfg.int(
    'TOLLGATE_AUTH_CALLOUT_MAX_TTL_S',
    'longest an issued NATS user lives, whatever its token says (seconds)',
    86_400,
    60,
    30 * 86_400,
  ),
};

/** The default issuer seed: `callout-issuer.nk` in the folder of the service's own credentials. */
export function defaultIssuerFile(credentialsFile: string | undefined): string {
  return join(credentialsFile ? join(credentialsFile, '..') : '.', 'callout-issuer.nk');
}
