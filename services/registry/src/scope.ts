import { TollgateError } from '@tollgate/core';
import type { Principal } from '@tollgate/core';
import { tenantOf } from '@tollgate/kit';

/** The isolation boundary a call acts in: one tenant and one of its environments. */
export interface Scope {
  tenant: string;
  environment: string;
}

/** A resource within its scope. */
export interface ResourceRef extends Scope {
  name: string;
}

/**
 * The scope a request acts in: the caller's tenant and the environment of the caller's token.
 * Empty request fields mean the caller's own; naming another tenant or environment is refused.
 * Environments are a boundary as hard as tenants (a token is valid in one environment), so an
 * operator managing several environments holds one token per environment.
 */
export function scopeOf(
  principal: Principal,
  requested: { tenant?: string | undefined; environment?: string | undefined },
): Scope {
  const tenant = tenantOf(principal, requested.tenant);
  if (requested.environment && requested.environment !== principal.environment) {
    throw new TollgateError(
      'TENANT_MISMATCH',
      `Environment "${requested.environment}" is not the caller's environment ("${principal.environment}"); ` +
        'a token acts in one environment only.',
    );
  }
  return { tenant, environment: principal.environment };
}

/** Storage id of a resource: `<tenant>/<environment>/<name>` (none of them contains `/`). */
export function resourceId(ref: ResourceRef): string {
  return `${ref.tenant}/${ref.environment}/${ref.name}`;
}

/** Storage id of one version of a resource. */
export function versionId(ref: ResourceRef, version: number): string {
  return `${resourceId(ref)}/${version}`;
}

/** The scope part of a resource id, used to group the catalog. */
export function scopeKey(scope: Scope): string {
  return `${scope.tenant}/${scope.environment}`;
}

/** Reads a resource id back (`undefined` when it is not one). */
export function refOfId(id: string): ResourceRef | undefined {
  const parts = id.split('/');
  if (parts.length !== 3 || parts.some((part) => part === '')) return undefined;
  const [tenant, environment, name] = parts as [string, string, string];
  return { tenant, environment, name };
}
