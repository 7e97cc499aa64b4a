import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { generateIssuerKeys, issuePrincipalToken } from '@tollgate/core';
import type { IssuerKeys, Principal, TrustedIssuer } from '@tollgate/core';
import { CliError } from '../errors.js';
import type { StackHome } from './home.js';

/** Name of the dev issuer `tollgate up` creates (the same file format as the kit's). */
export const DEV_ISSUER = 'tollgate-dev';

/**
 * Loads the dev issuer's keys, creating them (mode 0600) when absent, and writes the
 * trusted-issuers file the services are started with.
 */
export async function ensureIssuer(home: StackHome): Promise<IssuerKeys> {
  let keys = await readIssuer(home.issuerKeyFile);
  if (keys === undefined) {
    const fresh = await generateIssuerKeys(DEV_ISSUER);
    await mkdir(dirname(home.issuerKeyFile), { recursive: true, mode: 0o700 });
    await writeFile(home.issuerKeyFile, JSON.stringify(fresh, null, 2), {
      mode: 0o600,
      flag: 'wx',
    }).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw err;
    });
    keys = (await readIssuer(home.issuerKeyFile)) ?? fresh;
  }
  const trusted: TrustedIssuer[] = [{ issuer: keys.issuer, keys: [keys.publicJwk] }];
  const temp = `${home.trustedIssuersFile}.${process.pid}.tmp`;
  await mkdir(dirname(home.trustedIssuersFile), { recursive: true });
  await writeFile(temp, `${JSON.stringify(trusted, null, 2)}\n`);
  await rename(temp, home.trustedIssuersFile);
  return keys;
}

/** The dev issuer's keys; fails with what to do when `tollgate up` has not created them. */
export async function loadIssuer(home: StackHome): Promise<IssuerKeys> {
  const keys = await readIssuer(home.issuerKeyFile);
  if (keys === undefined) {
    throw new CliError(
      'NO_ISSUER',
      `no dev issuer key at ${home.issuerKeyFile}; run \`tollgate up\` (it creates one) or set TOLLGATE_TOKEN`,
    );
  }
  return keys;
}

async function readIssuer(path: string): Promise<IssuerKeys | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CliError(
      'NO_ISSUER',
      `cannot read the dev issuer key ${path}: ${(err as Error).message}`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const keys = parsed as Partial<IssuerKeys> | undefined;
  if (
    typeof keys?.issuer !== 'string' ||
    typeof keys.kid !== 'string' ||
    typeof keys.privateJwk !== 'object' ||
    typeof keys.publicJwk !== 'object'
  ) {
    throw new CliError(
      'NO_ISSUER',
      `${path} is not an issuer key file (expected { issuer, kid, privateJwk, publicJwk }); remove it and run \`tollgate up\``,
    );
  }
  return keys as IssuerKeys;
}

/** A signed token for `principal`, valid `ttlSeconds`. */
export async function mintToken(
  keys: IssuerKeys,
  principal: Principal,
  ttlSeconds: number,
): Promise<{ token: string; expiresAt: string }> {
  const token = await issuePrincipalToken(keys, principal, { ttlSeconds });
  return { token, expiresAt: new Date(Date.now() + ttlSeconds * 1000).toISOString() };
}
