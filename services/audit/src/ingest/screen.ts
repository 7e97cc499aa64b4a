import { createHash } from 'node:crypto';
import { clone } from '@bufbuild/protobuf';
import type { JsonObject, JsonValue } from '@bufbuild/protobuf';
import { EventEnvelopeSchema } from '@tollgate/contracts/events/v1';
import type { EventEnvelope } from '@tollgate/contracts/events/v1';
import { findSecrets, joinPath } from '@tollgate/core';
import { canonicalJson } from '../chain/canonical.js';

/** What replaces a value the secret screen flags. */
export const REDACTED = '[redacted]';

/** How much of an oversized argument object is kept, as text, next to the truncation marker. */
const PREVIEW_CHARS = 1024;

/** Arguments after screening, and what the screen did to them. */
export interface ScreenedArguments {
  arguments: JsonObject;
  /** Values (and keys) replaced because they looked like secrets. */
  redacted: number;
  /** True when the arguments were over the size limit and replaced by a marker. */
  truncated: boolean;
}

/**
 * Defence in depth on arguments the executor already redacted: every value (or key) the
 * secret screen flags becomes `[redacted]`; then, when the canonical JSON is larger than
 * `maxBytes`, the whole object becomes a marker with its size, digest and a short preview.
 */
export function screenArguments(args: JsonObject, maxBytes: number): ScreenedArguments {
  const findings = findSecrets(args);
  const counter = { redacted: 0 };
  const flags: Flags = {
    values: new Set(findings.map((finding) => finding.path)),
    keys: new Set(findings.filter((f) => f.reason.startsWith('key: ')).map((f) => f.path)),
  };
  const screened = findings.length === 0 ? args : (rewrite(args, '', flags, counter) as JsonObject);
  const text = canonicalJson(screened);
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes <= maxBytes)
    return { arguments: screened, redacted: counter.redacted, truncated: false };
  return {
    arguments: {
      _truncated: true,
      _bytes: bytes,
      _sha256: createHash('sha256').update(text, 'utf8').digest('hex'),
      _preview: `${text.slice(0, PREVIEW_CHARS)}…`,
    },
    redacted: counter.redacted,
    truncated: true,
  };
}

/** Paths whose value, or whose key, the secret screen flagged. */
interface Flags {
  values: ReadonlySet<string>;
  keys: ReadonlySet<string>;
}

function rewrite(
  value: JsonValue,
  path: string,
  flags: Flags,
  counter: { redacted: number },
): JsonValue {
  if (path !== '' && flags.values.has(path)) {
    counter.redacted++;
    return REDACTED;
  }
  if (Array.isArray(value)) {
    return value.map((item, index) => rewrite(item, joinPath(path, index), flags, counter));
  }
  if (value === null || typeof value !== 'object') return value;
  const out: JsonObject = {};
  let hiddenKeys = 0;
  for (const [key, child] of Object.entries(value)) {
    const childPath = joinPath(path, key);
    const shownKey = flags.keys.has(childPath) ? `${REDACTED}#${++hiddenKeys}` : key;
    out[shownKey] = rewrite(child, childPath, flags, counter);
  }
  return out;
}

/** Totals of what screening did to one event. */
export interface EventScreening {
  event: EventEnvelope;
  redacted: number;
  truncated: boolean;
}

/**
 * The event with every argument object in it screened: the event itself when the screen
 * changed nothing, otherwise a copy (the input is never changed).
 */
export function screenEvent(event: EventEnvelope, maxBytes: number): EventScreening {
  const p = event.payload;
  const holder =
    p.case === 'callStarted' || p.case === 'callCompleted' || p.case === 'callDenied'
      ? p.value
      : p.case === 'approvalRequested' || p.case === 'approvalDecided'
        ? p.value.approval
        : undefined;
  if (!holder?.arguments) return { event, redacted: 0, truncated: false };
  const result = screenArguments(holder.arguments, maxBytes);
  if (result.redacted === 0 && !result.truncated) return { event, redacted: 0, truncated: false };
  const copy = clone(EventEnvelopeSchema, event);
  const c = copy.payload;
  if (c.case === 'callStarted' || c.case === 'callCompleted' || c.case === 'callDenied')
    c.value.arguments = result.arguments;
  else if ((c.case === 'approvalRequested' || c.case === 'approvalDecided') && c.value.approval) {
    c.value.approval.arguments = result.arguments;
  }
  return { event: copy, redacted: result.redacted, truncated: result.truncated };
}
