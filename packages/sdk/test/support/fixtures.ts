import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JsonObject } from '@bufbuild/protobuf';
import { generateIssuerKeys, issuePrincipalToken } from '@tollgate/core';
import type { IssuerKeys } from '@tollgate/core';

/** A name no other test run uses. */
export function uniqueName(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
}

/**
 * A token shaped like a principal token (JWT with tenant/sub/env claims). The stand-in services
 * compare it as a string; the SDK only reads its claims.
 */
export function principalToken(claims: {
  tenant: string;
  agent: string;
  environment?: string;
  user?: string;
}): string {
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const payload = {
    tenant: claims.tenant,
    sub: claims.agent,
    env: claims.environment ?? 'prod',
    ...(claims.user ? { user: claims.user } : {}),
    aud: 'tollgate',
  };
  return `${encode({ alg: 'EdDSA', typ: 'JWT' })}.${encode(payload)}.${Buffer.from('test-signature').toString('base64url')}`;
}

/** A search tool's input schema shaped like the synthesizer's (strict mode: nullable optionals). */
export function searchSchema(): JsonObject {
  return {
    type: 'object',
    additionalProperties: false,
    properties: {
      filters: {
        type: ['array', 'null'],
        items: {
          anyOf: [
            {
              type: 'object',
              additionalProperties: false,
              properties: {
                field: { const: 'id' },
                op: { enum: ['eq', 'in', 'exists'] },
                value: { type: ['string', 'array', 'null'] },
              },
              required: ['field', 'op', 'value'],
            },
            {
              type: 'object',
              additionalProperties: false,
              properties: {
                field: { const: 'amount' },
                op: { enum: ['eq', 'gt', 'gte', 'lt', 'lte', 'between'] },
                value: { type: ['number', 'array', 'null'] },
              },
              required: ['field', 'op', 'value'],
            },
          ],
        },
      },
      limit: { type: ['integer', 'null'], minimum: 1, maximum: 50 },
      cursor: { type: ['string', 'null'] },
    },
    required: ['filters', 'limit', 'cursor'],
  };
}

/** Order rows as the executor would shape them. */
export function orders(count: number): JsonObject[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `ORD-${1000 + i}`,
    amount: 10 + i,
    status: i % 2 === 0 ? 'paid' : 'shipped',
  }));
}

let issuer: Promise<IssuerKeys> | undefined;

/** The issuer of `signedToken`: one per test process, written to `file` for the callout. */
export async function testIssuer(): Promise<{ keys: IssuerKeys; file: string }> {
  issuer ??= generateIssuerKeys('sdk-test');
  const keys = await issuer;
  const file = join(tmpdir(), `sdk-test-issuer-${process.pid}.json`);
  await writeFile(file, JSON.stringify(keys), { mode: 0o600 });
  return { keys, file };
}

/** A real, signed principal token (what the bus's auth callout lets in). */
export async function signedToken(claims: {
  tenant: string;
  agent: string;
  environment?: string;
  user?: string;
}): Promise<string> {
  const { keys } = await testIssuer();
  return issuePrincipalToken(keys, {
    tenant: claims.tenant,
    agent: claims.agent,
    environment: claims.environment ?? 'prod',
    ...(claims.user ? { user: claims.user } : {}),
  });
}
