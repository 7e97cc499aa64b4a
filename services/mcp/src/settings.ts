/** Reads the files the MCP front end is configured with, failing with what is wrong. */
import { readFile } from 'node:fs/promises';
import type { IssuerKeys } from '@tollgate/core';
import { NO_OAUTH, parseIdentitySettings } from './identity/rules.js';
import type { IdentitySettings } from './identity/rules.js';

/** The identity file's settings; none configured: Tollgate agent tokens only. */
export async function loadIdentity(path: string): Promise<IdentitySettings> {
  if (path === '') return NO_OAUTH;
  return parseIdentitySettings(await readJson(path, 'TOLLGATE_MCP_IDENTITY_FILE'));
}

/** An issuer key file (`{ issuer, kid, privateJwk, publicJwk }`). */
export async function loadIssuerKeys(path: string): Promise<IssuerKeys> {
  const keys = (await readJson(path, 'TOLLGATE_MCP_ISSUER_KEY_FILE')) as Partial<IssuerKeys>;
  if (
    typeof keys?.issuer !== 'string' ||
    typeof keys.kid !== 'string' ||
    typeof keys.privateJwk !== 'object' ||
    typeof keys.publicJwk !== 'object'
  ) {
    throw new Error(
      `TOLLGATE_MCP_ISSUER_KEY_FILE ${path}: expected { issuer, kid, privateJwk, publicJwk }`,
    );
  }
  return keys as IssuerKeys;
}

/** A comma-separated setting as a list (empty entries dropped). */
export function splitList(value: string): string[] {
  return value
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
}

async function readJson(path: string, variable: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new Error(`${variable} ${path}: cannot read it (${(err as Error).message})`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${variable} ${path}: not valid JSON`);
  }
}
