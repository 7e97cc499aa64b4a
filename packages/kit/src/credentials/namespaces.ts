/**
 * `TOLLGATE_CREDENTIAL_NAMESPACES`, read the same way by the registry (checked at apply) and the
 * executor (checked again before resolving), and what each says about it at boot. Unset means
 * core's per-tenant, per-environment default; `unrestricted` turns the check off, loudly.
 */
import { DEFAULT_CREDENTIAL_NAMESPACES, parseCredentialNamespaces } from '@tollgate/core';
import type { CredentialNamespaces } from '@tollgate/core';
import type { ConfigField } from '../config/config.js';
import type { Logger } from '../log/logger.js';

export const credentialNamespacesConfig: ConfigField<CredentialNamespaces> = {
  env: 'TOLLGATE_CREDENTIAL_NAMESPACES',
  description:
    'comma-separated credential reference prefixes with {tenant}/{environment} ({TENANT}/{ENVIRONMENT} in env:// rules) a resource may name, or "unrestricted"',
  parse: parseCredentialNamespaces,
  default: parseCredentialNamespaces(DEFAULT_CREDENTIAL_NAMESPACES),
};

/** Logs the rules in force; with `unrestricted`, a warning that any tenant may use any credential. */
export function announceCredentialNamespaces(
  logger: Logger,
  namespaces: CredentialNamespaces,
): void {
  if (namespaces.unrestricted) {
    logger.warn(
      { credentialNamespaces: 'unrestricted' },
      "CREDENTIAL NAMESPACES ARE OFF (TOLLGATE_CREDENTIAL_NAMESPACES=unrestricted): a resource of ANY tenant may name ANY credential reference, including other tenants' secrets and this process's own environment. Use this only on a single-tenant development machine.",
    );
    return;
  }
  logger.info(
    { credentialNamespaces: namespaces.rules.map((rule) => rule.text) },
    'credential references are confined to per-tenant namespaces',
  );
}
