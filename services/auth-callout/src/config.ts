import { join } from 'node:path';
import { cfg } from '@tollgate/kit';

/** Where the dev issuer's keys are created when no trusted-issuers file is configured. */
export const DEV_ISSUER_FILE = '.tollgate/dev-issuer.json';

/** The auth callout's own settings, on top of the common ones. */
export const calloutConfig = {
  trustedIssuersFile: cfg.string(
    'TOLLGATE_TRUSTED_ISSUERS_FILE',
    `trusted token issuers: [{ issuer, keys }] or an issuer key file (empty: a dev issuer at ${DEV_ISSUER_FILE})`,
    '',
  ),
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
