/**
 * The agent side of the NATS data plane (docs/services.md, "Data plane over NATS"): tool
 * formats and token claims. Subjects and headers are contracts' (`@tollgate/contracts/bus`),
 * the same the services use.
 */
import { ToolFormat as ProtoToolFormat } from '@tollgate/contracts/tools/v1';

/** Tool export formats, by the names the rest of Tollgate uses. */
export type ToolFormatName = 'json_schema' | 'openai' | 'anthropic' | 'mcp';

const toProto: Record<ToolFormatName, ProtoToolFormat> = {
  json_schema: ProtoToolFormat.JSON_SCHEMA,
  openai: ProtoToolFormat.OPENAI,
  anthropic: ProtoToolFormat.ANTHROPIC,
  mcp: ProtoToolFormat.MCP,
};

export function protoFormat(format: ToolFormatName): ProtoToolFormat {
  return toProto[format];
}

export function formatName(format: ProtoToolFormat): ToolFormatName {
  const entry = Object.entries(toProto).find(([, value]) => value === format);
  return (entry?.[0] as ToolFormatName | undefined) ?? 'json_schema';
}

export function isToolFormatName(value: unknown): value is ToolFormatName {
  return typeof value === 'string' && Object.hasOwn(toProto, value);
}

/**
 * Who the token says the agent is, read WITHOUT verifying the signature — only to pick this
 * principal's completion events. Services verify the token on every request.
 */
export interface TokenClaims {
  tenant: string;
  agent: string;
  environment: string;
  user?: string;
}

export function readTokenClaims(token: string): TokenClaims | undefined {
  const claims = tokenPayload(token);
  if (claims === undefined) return undefined;
  const { tenant, sub, env, user } = claims;
  if (typeof tenant !== 'string' || typeof sub !== 'string' || typeof env !== 'string')
    return undefined;
  return { tenant, agent: sub, environment: env, ...(typeof user === 'string' ? { user } : {}) };
}

/** When the token expires (its `exp`, ms since the epoch), if it says; read, not verified. */
export function readTokenExpiry(token: string): number | undefined {
  const exp = tokenPayload(token)?.['exp'];
  return typeof exp === 'number' && Number.isFinite(exp) ? exp * 1_000 : undefined;
}

function tokenPayload(token: string): Record<string, unknown> | undefined {
  const payload = token.split('.')[1];
  if (payload === undefined) return undefined;
  let claims: unknown;
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  return typeof claims === 'object' && claims !== null
    ? (claims as Record<string, unknown>)
    : undefined;
}
