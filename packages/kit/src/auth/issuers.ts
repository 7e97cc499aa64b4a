import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { TokenVerifier, generateIssuerKeys } from '@tollgate/core';
import type { IssuerKeys, TrustedIssuer } from '@tollgate/core';

/**
 * Reads trusted issuers from a JSON file: either `[{ issuer, keys: [publicJwk…] }]` or a dev
 * issuer's key file (`IssuerKeys`, whose public half is used). Fails with a clear message.
 */
export async function loadTokenVerifier(path: string): Promise<TokenVerifier> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(path, 'utf8'));
  } catch (err) {
    throw new Error(`cannot read trusted issuers from ${path}: ${(err as Error).message}`);
  }
  const trusted: TrustedIssuer[] = Array.isArray(parsed)
    ? (parsed as TrustedIssuer[])
    : [{ issuer: (parsed as IssuerKeys).issuer, keys: [(parsed as IssuerKeys).publicJwk] }];
  if (
    !trusted.every(
      (t) => typeof t?.issuer === 'string' && Array.isArray(t.keys) && t.keys.length > 0,
    )
  ) {
    throw new Error(
      `trusted issuers in ${path}: expected [{ issuer, keys: [jwk…] }] or an issuer key file`,
    );
  }
  return TokenVerifier.create(trusted);
}

/** Loads the dev issuer's keys, creating them (mode 0600) on first use. */
export async function ensureDevIssuer(path: string, issuer = 'tollgate-dev'): Promise<IssuerKeys> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as IssuerKeys;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const keys = await generateIssuerKeys(issuer);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, JSON.stringify(keys, null, 2), { mode: 0o600, flag: 'wx' }).catch(
    async (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw err;
    },
  );
  return JSON.parse(await readFile(path, 'utf8')) as IssuerKeys;
}

/**
 * The verifier a service trusts: the configured trusted-issuers file, or — when none is
 * configured (local development) — the dev issuer at `devIssuerFile`, created on first use and
 * announced with a warning.
 */
export async function tokenVerifierFor(
  trustedIssuersFile: string,
  devIssuerFile: string,
  logger: { warn(obj: object, msg: string): void },
): Promise<TokenVerifier> {
  if (trustedIssuersFile !== '') return loadTokenVerifier(trustedIssuersFile);
  await ensureDevIssuer(devIssuerFile);
  logger.warn({ file: devIssuerFile }, 'no TOLLGATE_TRUSTED_ISSUERS_FILE: trusting the dev issuer');
  return loadTokenVerifier(devIssuerFile);
}
