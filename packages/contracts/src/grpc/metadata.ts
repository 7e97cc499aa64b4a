import { Metadata } from '@grpc/grpc-js';

/** Metadata as callers usually hold it: a grpc `Metadata` or plain header values. */
export type MetadataInit = Metadata | Record<string, string | string[]>;

const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;
const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** Merges metadata sources left to right into a new `Metadata` (later keys replace earlier). */
export function toMetadata(...sources: Array<MetadataInit | undefined>): Metadata {
  const merged = new Metadata();
  for (const source of sources) {
    if (source === undefined) continue;
    if (source instanceof Metadata) {
      for (const [key, values] of Object.entries(source.toJSON())) {
        merged.remove(key);
        for (const value of values) merged.add(key, value);
      }
      continue;
    }
    for (const [key, value] of Object.entries(source)) {
      merged.remove(key);
      for (const item of Array.isArray(value) ? value : [value]) merged.add(key, item);
    }
  }
  return merged;
}

function firstString(metadata: Metadata, key: string): string | undefined {
  const [value] = metadata.get(key);
  return typeof value === 'string' ? value : undefined;
}

/** The W3C `traceparent` header when present and well-formed. */
export function readTraceparent(metadata: Metadata): string | undefined {
  const value = firstString(metadata, 'traceparent')?.trim().toLowerCase();
  return value !== undefined && TRACEPARENT.test(value) ? value : undefined;
}

/** The W3C `tracestate` header, when present. */
export function readTracestate(metadata: Metadata): string | undefined {
  return firstString(metadata, 'tracestate');
}

/** The token of an `authorization: Bearer <token>` header, when present. */
export function readBearerToken(metadata: Metadata): string | undefined {
  const value = firstString(metadata, 'authorization');
  return value === undefined ? undefined : BEARER.exec(value)?.[1];
}
