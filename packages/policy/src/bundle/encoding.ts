/**
 * How a bundle is stored in the policy bundles KV bucket: gzip'd JSON. A tenant's bundle grows
 * with its resources (≈ 2.8 KB of JSON each), so a few hundred resources would pass the 1 MiB
 * a NATS message may carry by default; compressed, the same bundle is ~15× smaller. Readers
 * accept plain JSON too (bundles written before, and hand-made ones in tests).
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import type { PolicyBundle } from './types.js';

/** The most a stored bundle may expand to: a guard against decompression bombs. */
export const MAX_BUNDLE_JSON_BYTES = 64 * 1024 * 1024;

/** The bytes to store for `bundle`. */
export function encodeBundle(bundle: PolicyBundle): Uint8Array {
  return gzipSync(JSON.stringify(bundle));
}

/** Whether stored bytes are gzip'd (the gzip magic number). */
export function isGzip(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

/** The JSON text of a stored bundle, gzip'd or plain; throws with the reason it cannot be read. */
export function bundleText(bytes: Uint8Array): string {
  let json: Uint8Array = bytes;
  if (isGzip(bytes)) {
    try {
      json = gunzipSync(bytes, { maxOutputLength: MAX_BUNDLE_JSON_BYTES });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new Error(
        code === 'ERR_BUFFER_TOO_LARGE'
          ? `bundle expands to more than ${MAX_BUNDLE_JSON_BYTES} bytes`
          : `bundle is not valid gzip: ${(err as Error).message}`,
      );
    }
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(json);
  } catch (err) {
    throw new Error(`bundle is not valid JSON: ${(err as Error).message}`);
  }
}
