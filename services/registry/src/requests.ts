/**
 * Checks of the registry's gRPC request fields, on top of kit's common ones (resource names,
 * ids, texts, descriptors): every problem of a request is reported at once.
 */
import { RequestProblems, hasControlCharacter, requestChecker, shown } from '@tollgate/kit';

const SCOPE_NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;
const LABEL_KEY = /^[a-z][a-z0-9_./-]{0,62}$/;
const MAX_LABEL_VALUE = 256;
const MAX_SESSION_ID = 200;

/** The problems of one registry request. */
export class RegistryRequestProblems extends RequestProblems {
  /** An optional tenant or environment (empty = the caller's). */
  scopePart(path: string, value: string): string | undefined {
    if (value === '') return undefined;
    if (!SCOPE_NAME.test(value))
      this.add(path, 'a name matching [a-z0-9][a-z0-9-]{0,62}', shown(value));
    return value;
  }

  /** The resource a request names: its tenant and environment (empty = the caller's), its name. */
  resource(req: { tenant: string; environment: string; name: string }) {
    return {
      tenant: this.scopePart('tenant', req.tenant),
      environment: this.scopePart('environment', req.environment),
      name: this.resourceName('name', req.name),
    };
  }

  /** A version number that must be at least 1. */
  version(path: string, value: number): number {
    if (value < 1) this.add(path, 'a version number of 1 or more', String(value));
    return value;
  }

  labels(path: string, labels: Record<string, string>): Record<string, string> {
    for (const [key, value] of Object.entries(labels)) {
      if (!LABEL_KEY.test(key)) {
        this.add(
          `${path}[${JSON.stringify(key)}]`,
          'a label key matching [a-z][a-z0-9_./-]{0,62}',
          shown(key),
        );
      } else if (value.length > MAX_LABEL_VALUE || hasControlCharacter(value)) {
        this.add(
          `${path}[${JSON.stringify(key)}]`,
          'one line of at most 256 characters',
          'a longer or multi-line value',
        );
      }
    }
    return labels;
  }

  /** An optional resource type among those this registry has connectors for. */
  resourceType(path: string, value: string, kinds: readonly string[]): string | undefined {
    if (value === '') return undefined;
    if (!kinds.includes(value)) this.add(path, `one of ${kinds.join(', ')}`, shown(value));
    return value;
  }

  draftId(path: string, value: string): string {
    return this.uuid(path, value, 'draft');
  }

  sessionId(path: string, value: string): string {
    return this.text(path, value, MAX_SESSION_ID);
  }
}

/** Checks one request: `checkRequest(p => …)` returns what the callback returns, or throws. */
export const checkRequest = requestChecker(() => new RegistryRequestProblems());
