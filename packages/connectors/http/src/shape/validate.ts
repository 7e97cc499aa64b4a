/**
 * Responses checked against the operation's declared responses before anything is used: the
 * status must be declared, the content type must match, and the body must fit the schema
 * (Ajv). What was off is said by location and rule, never by quoting the upstream's values.
 */
import { createHash } from 'node:crypto';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { UpstreamError } from '@tollgate/core';
import type { HttpResponseShape } from '../kind/spec.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

const ajv = addFormats(
  new Ajv2020({ strict: false, allErrors: true, logger: false, validateSchema: false }),
);
const validators = new Map<string, ValidateFunction>();
const MAX_VALIDATORS = 512;
const MAX_REPORTED = 3;

function validatorFor(schema: Record<string, unknown>): ValidateFunction {
  const key = createHash('sha256').update(JSON.stringify(schema)).digest('hex');
  let validator = validators.get(key);
  if (validator === undefined) {
    validator = ajv.compile(schema);
    validators.set(key, validator);
    if (validators.size > MAX_VALIDATORS)
      validators.delete(validators.keys().next().value as string);
  }
  return validator;
}

/** The declared response for a status: exact code, then `2XX`-style range, then `default`. */
export function declaredResponse(
  responses: Record<string, HttpResponseShape> | undefined,
  status: number,
): HttpResponseShape | undefined {
  const all = responses ?? {};
  const pick = (key: string): HttpResponseShape | undefined =>
    Object.hasOwn(all, key) ? all[key] : undefined;
  return (
    pick(String(status)) ??
    pick(`${String(status)[0]}XX`) ??
    pick(`${String(status)[0]}xx`) ??
    pick('default')
  );
}

function bad(resource: string, status: number, what: string): UpstreamError {
  return new UpstreamError(
    'UPSTREAM_BAD_RESPONSE',
    `The API of ${resource} answered outside its declared responses: ${what}.`,
    {
      attempts: 1,
      upstreamStatus: status,
    },
  );
}

/** Checks status, content type and body; throws `UPSTREAM_BAD_RESPONSE` saying what was off. */
export function checkResponse(
  responses: Record<string, HttpResponseShape> | undefined,
  status: number,
  body: { contentType: string; json?: unknown; size: number },
  resource: string,
): void {
  const declared = declaredResponse(responses, status);
  if (declared === undefined) throw bad(resource, status, `status ${status} is not declared`);
  if (declared.contentType === undefined) {
    if (body.size > 0 && body.json === undefined)
      throw bad(resource, status, 'a body where none is declared');
    return;
  }
  if (body.contentType !== declared.contentType)
    throw bad(
      resource,
      status,
      `content type ${JSON.stringify(body.contentType.slice(0, 80))} instead of ${declared.contentType}`,
    );
  if (declared.schema === undefined) return;
  if (body.json === undefined) throw bad(resource, status, 'no JSON body');
  const validate = validatorFor(declared.schema);
  if (validate(body.json)) return;
  const errors = (validate.errors ?? [])
    .slice(0, MAX_REPORTED)
    .map(
      (e) =>
        `${e.instancePath === '' ? '(body)' : e.instancePath} ${e.message ?? 'does not match'}`,
    );
  const more =
    (validate.errors?.length ?? 0) > MAX_REPORTED
      ? ` and ${(validate.errors?.length ?? 0) - MAX_REPORTED} more`
      : '';
  throw bad(resource, status, `the body does not match its schema (${errors.join('; ')}${more})`);
}
