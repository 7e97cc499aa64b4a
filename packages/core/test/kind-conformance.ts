/**
 * The conformance suite every resource kind passes against its real system, whatever its family
 * or wherever its operations come from: the contract core and the services rely on. Operations
 * are named, classed and distinct; discovery reads the live system and merges cleanly; every
 * tool is closed; compile is pure and refuses what the tool does not offer; a governed read runs
 * compile → execute → shape within the caps; an unreachable upstream is said as such, retryable;
 * the credential never surfaces. A kind's integration test calls `runKindConformance` inside its
 * own file. The table family's suite (connector-conformance.ts) adds paging, filters, row
 * filters and writes on top.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { CompileContext, Connector } from '../src/connector/types.js';
import type { CredentialResolver } from '../src/connector/credential.js';
import type { ResourceDescriptor } from '../src/descriptor/types.js';
import { mergeSchema } from '../src/discovery/merge.js';
import type { TollgateError } from '../src/errors/codes.js';
import { isOperationName } from '../src/kind/operation.js';
import { permissionsFromAccess } from '../src/synthesis/permissions.js';
import { synthesizeTools } from '../src/synthesis/synthesize.js';
import { compileToolValidator } from '../src/tools/validator.js';
import type { PermissionSet, VersionedResource } from '../src/tools/types.js';

/** The secret the canary credential resolves to; it must never surface anywhere. */
export const KIND_CANARY = 'tollgate-kind-canary-3b9e71';

/** What a kind's test provides: its real system, and a resource on it. */
export interface KindConformanceEnv {
  /** The resource as confirmation saves it: discovered, pinned where the kind pins, validated. */
  resource(): Promise<VersionedResource>;
  /** Roles that may read it. */
  roles: string[];
  /** A read operation, and arguments its tool accepts, that returns something. */
  read: { operation: string; args: Record<string, unknown> };
  credentials: CredentialResolver;
  /** The resource pointed where nothing answers, with a credential resolving to KIND_CANARY. */
  unreachable(resource: VersionedResource): VersionedResource;
  cleanup?(): Promise<void>;
}

const CLASSES = new Set(['read', 'write', 'destructive']);
const UNKNOWN = '__tollgate_not_offered';

/**
 * A Tollgate error by its shape: a connector's errors come from the built core, a class other
 * than this file's source import, so `instanceof` cannot tell.
 */
function isTollgateError(err: unknown): err is TollgateError {
  return (
    err instanceof Error &&
    typeof (err as TollgateError).code === 'string' &&
    typeof (err as TollgateError).category === 'string'
  );
}

async function failure(call: Promise<unknown>): Promise<TollgateError> {
  try {
    await call;
  } catch (err) {
    if (isTollgateError(err)) return err;
    throw err;
  }
  throw new Error('expected the call to fail');
}

/** Declares the suite for `connector` in the calling test file. */
export function runKindConformance(connector: Connector, env: KindConformanceEnv): void {
  let resource: VersionedResource;
  let permissions: PermissionSet;

  const ctx = (descriptor: ResourceDescriptor = resource): CompileContext => ({
    descriptor,
    permissions,
    principal: { tenant: descriptor.metadata.tenant, agent: 'conformance-agent' },
  });

  describe(`kind conformance: ${connector.type}`, () => {
    beforeAll(async () => {
      resource = await env.resource();
      const granted = permissionsFromAccess(
        resource,
        { roles: env.roles, agent: 'conformance-agent' },
        connector.operations(resource),
      );
      if (granted === undefined) throw new Error(`roles ${env.roles.join(', ')} have no access`);
      permissions = granted;
    }, 60_000);
    afterAll(async () => {
      await env.cleanup?.();
    });

    it('kind conformance - operations are named, classed, distinct; only reads are offered read-only', () => {
      const operations = connector.operations(resource);
      expect(operations.length).toBeGreaterThan(0);
      for (const op of operations) {
        expect(isOperationName(op.name), op.name).toBe(true);
        expect(CLASSES.has(op.class), `${op.name}: ${op.class}`).toBe(true);
        expect(op.action.length, op.name).toBeGreaterThan(0);
        if (op.class === 'read') expect(op.idempotent, op.name).toBe(true);
      }
      expect(new Set(operations.map((o) => o.name)).size).toBe(operations.length);
      expect(operations.some((o) => o.name === env.read.operation && o.class === 'read')).toBe(
        true,
      );
      const readonly = {
        ...resource,
        spec: { ...resource.spec, access: { ...resource.spec.access, readonly: true } },
      };
      const offered = permissionsFromAccess(
        readonly,
        { roles: env.roles, agent: 'conformance-agent' },
        connector.operations(readonly),
      );
      const classOf = new Map(operations.map((o) => [o.name, o.class]));
      expect((offered?.operations ?? []).filter((name) => classOf.get(name) !== 'read')).toEqual(
        [],
      );
    });

    it('kind conformance - discovery reads the live system and merges into the saved declaration without errors', async () => {
      const schema = await connector.discover(resource.spec, env.credentials);
      expect(schema.fields.length).toBeGreaterThan(0);
      const merged = mergeSchema(resource.spec.schema.fields, schema);
      expect(merged.issues.filter((issue) => issue.severity === 'error')).toEqual([]);
    });

    it('kind conformance - every tool is closed: arguments it does not offer are refused', () => {
      const tools = synthesizeTools(resource, permissions, connector);
      expect(tools.map((t) => t.operation)).toContain(env.read.operation);
      for (const tool of tools) {
        expect(tool.inputSchema['additionalProperties'], tool.name).toBe(false);
        expect(compileToolValidator(tool).validate({ [UNKNOWN]: 1 }).ok, tool.name).toBe(false);
      }
      const read = tools.find((t) => t.operation === env.read.operation)!;
      expect(compileToolValidator(read).validate(env.read.args).ok).toBe(true);
    });

    it('kind conformance - compile is pure and serialisable, and refuses what the tool does not offer', () => {
      const first = connector.compile(env.read.operation, env.read.args, ctx());
      const again = connector.compile(env.read.operation, structuredClone(env.read.args), ctx());
      expect(again).toEqual(first);
      expect(JSON.parse(JSON.stringify(first))).toEqual(first);
      let refused: unknown;
      try {
        connector.compile(env.read.operation, { ...env.read.args, [UNKNOWN]: 1 }, ctx());
      } catch (err) {
        refused = err;
      }
      expect(isTollgateError(refused)).toBe(true);
      expect((refused as TollgateError).category).toBe('fix_arguments');
      expect(JSON.stringify((refused as TollgateError).details ?? [])).toContain(UNKNOWN);
    });

    it('kind conformance - a governed read runs compile → execute → shape within the byte budget', async () => {
      const request = connector.compile(env.read.operation, env.read.args, ctx());
      const upstream = await connector.execute(request, {
        descriptor: resource,
        credentials: env.credentials,
        backoffMs: 10,
        deadline: Date.now() + 20_000,
      });
      const maxBytes = 16_384;
      const shaped = connector.shape(env.read.operation, upstream, {
        descriptor: resource,
        permissions,
        request,
        maxBytes,
      });
      expect(shaped.data).toBeDefined();
      expect(shaped.bytes).toBe(Buffer.byteLength(JSON.stringify(shaped.data)));
      expect(shaped.bytes).toBeLessThanOrEqual(maxBytes);
    });

    it('kind conformance - an unreachable upstream is UPSTREAM_UNAVAILABLE, retryable, and the credential never surfaces', async () => {
      const offline = env.unreachable(resource);
      const request = connector.compile(env.read.operation, env.read.args, ctx(offline));
      const error = await failure(
        connector.execute(request, {
          descriptor: offline,
          credentials: env.credentials,
          maxAttempts: 2,
          backoffMs: 10,
          deadline: Date.now() + 20_000,
        }),
      );
      expect(error).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', category: 'retryable' });
      const cause =
        error.cause instanceof Error
          ? `${error.cause.message} ${error.cause.stack ?? ''}`
          : String(error.cause);
      const rendered = [
        error.message,
        error.stack ?? '',
        JSON.stringify(error),
        JSON.stringify(error.details),
        cause,
      ].join('\n');
      expect(rendered).not.toContain(KIND_CANARY);
      expect(rendered).not.toContain(Buffer.from(KIND_CANARY).toString('base64'));
    });
  });
}
