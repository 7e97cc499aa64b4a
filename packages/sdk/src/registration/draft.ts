/**
 * A registry draft in plain TypeScript, the echo read back to the user, and reading the user's
 * answer to it. Pure.
 */
import type { JsonObject, JsonValue } from '@bufbuild/protobuf';
import { DraftStatus } from '@tollgate/contracts/registry/v1';
import type { Draft } from '@tollgate/contracts/registry/v1';
import { resourceKinds } from '@tollgate/kinds';

/** A field as the draft holds it: declared and/or discovered in the real system. */
export interface DraftField {
  name: string;
  type: string;
  nativeType: string;
  /** True when the proposal declares it (so it will be usable once confirmed). */
  declared: boolean;
  /** The type the proposal declared, when discovery found another (discovery wins). */
  declaredType?: string;
  /** For undeclared fields: what discovery suggests enabling. */
  proposedCapabilities: string[];
}

export interface ResourceDraft {
  draftId: string;
  status: 'pending' | 'confirmed' | 'rejected' | 'expired' | 'unknown';
  tenant: string;
  environment: string;
  name: string;
  /** Proposal merged with what discovery found. */
  descriptor: JsonObject;
  fields: DraftField[];
  warnings: Array<{ code: string; path: string; message: string }>;
  /** True when confirming without edits would succeed. */
  confirmable: boolean;
  /** The proposal in plain language, ending in a question for the user. */
  echo: string;
}

const statuses: Record<DraftStatus, ResourceDraft['status']> = {
  [DraftStatus.UNSPECIFIED]: 'unknown',
  [DraftStatus.PENDING]: 'pending',
  [DraftStatus.CONFIRMED]: 'confirmed',
  [DraftStatus.REJECTED]: 'rejected',
  [DraftStatus.EXPIRED]: 'expired',
};

export function readDraft(draft: Draft): ResourceDraft {
  const read: Omit<ResourceDraft, 'echo'> = {
    draftId: draft.id,
    status: statuses[draft.status] ?? 'unknown',
    tenant: draft.tenant,
    environment: draft.environment,
    name: draft.name,
    descriptor: draft.descriptor ?? {},
    fields: draft.fields.map((f) => ({
      name: f.name,
      type: f.type,
      nativeType: f.nativeType,
      declared: f.declared,
      ...(f.declaredType !== '' ? { declaredType: f.declaredType } : {}),
      proposedCapabilities: [...f.proposedCapabilities],
    })),
    warnings: draft.warnings.map((w) => ({ code: w.code, path: w.path, message: w.message })),
    confirmable: draft.confirmable,
  };
  return { ...read, echo: draft.echo.trim() !== '' ? draft.echo : echoDraft(read) };
}

/**
 * "I understood: <kind> orders at http://…, as resource orders, fields id
 * (keyword), amount (double)… Is that correct?" — used when the registry sends no echo.
 */
export function echoDraft(draft: Omit<ResourceDraft, 'echo'>): string {
  const spec = asObject(draft.descriptor.spec);
  const kind = typeof spec?.type === 'string' ? resourceKinds.find(spec.type) : undefined;
  const roles = asObject(spec?.access)?.allowedRoles;
  const declared = draft.fields.filter((f) => f.declared);
  const extra = draft.fields.filter((f) => !f.declared);
  const parts = [
    kind !== undefined && spec !== undefined
      ? `${kind.title} ${kind.describeTarget(spec as never)}`
      : String(spec?.type ?? 'a resource'),
    `as resource ${draft.name || '(no name yet)'}`,
    declared.length > 0 ? `fields ${declared.map(describeField).join(', ')}` : 'no fields declared',
  ];
  if (Array.isArray(roles) && roles.length > 0) parts.push(`usable by roles ${roles.join(', ')}`);
  const lines = [`I understood: ${parts.join('; ')}.`];
  if (extra.length > 0)
    lines.push(`Discovery also found ${extra.map(describeField).join(', ')} (not enabled).`);
  for (const w of draft.warnings) lines.push(`Note: ${w.message}`);
  if (!draft.confirmable)
    lines.push('Something required is still missing, so it cannot be saved as it is.');
  lines.push('Is that correct?');
  return lines.join('\n');
}

function describeField(field: DraftField): string {
  const changed =
    field.declaredType && field.declaredType !== field.type
      ? `, you said ${field.declaredType}`
      : '';
  return `${field.name} (${field.type}${changed})`;
}

/** How a reply to the echo reads: agreement, refusal, or neither (ask again). */
export function readAgreement(reply: string): 'yes' | 'no' | 'unclear' {
  const text = reply.trim().toLowerCase();
  if (
    /^(no|nope|n|wrong|incorrect|not (quite|really|correct)|cancel|don'?t|do not)\b/.test(text) ||
    /^(不|否|错)/.test(text)
  ) {
    return 'no';
  }
  if (
    /^(yes|y|yeah|yep|yup|correct|right|ok|okay|sure|confirm(ed)?|looks (good|right)|that'?s (right|correct)|go ahead)\b/.test(
      text,
    ) ||
    /^(是|对|好|确认|没错)/.test(text)
  ) {
    return 'yes';
  }
  return 'unclear';
}

function asObject(value: JsonValue | undefined): JsonObject | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined;
}
