import { describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import { TokenVerifier, generateIssuerKeys, issuePrincipalToken } from '../src/index.js';

const principal = { tenant: 'team-a', agent: 'support', environment: 'prod', user: 'alice' };

describe('principal tokens', () => {
  it('token - a token from a trusted issuer yields its principal', async () => {
    const keys = await generateIssuerKeys('tollgate-dev');
    const verifier = await TokenVerifier.create([{ issuer: keys.issuer, keys: [keys.publicJwk] }]);
    const token = await issuePrincipalToken(keys, principal, { tokenId: 't1' });
    expect(await verifier.verify(token)).toEqual({ ...principal, tokenId: 't1' });
  });

  it('token - missing, expired, forged, foreign-key and wrong-audience tokens are UNAUTHENTICATED', async () => {
    const keys = await generateIssuerKeys('tollgate-dev', 'k1');
    const other = await generateIssuerKeys('tollgate-dev', 'k1');
    const verifier = await TokenVerifier.create([{ issuer: keys.issuer, keys: [keys.publicJwk] }]);
    const good = await issuePrincipalToken(keys, principal);
    const cases: Array<[string | undefined, string]> = [
      [undefined, 'Not authenticated: no principal token was presented.'],
      [
        await issuePrincipalToken(keys, principal, { ttlSeconds: -10 }),
        'Not authenticated: the principal token has expired.',
      ],
      [
        await issuePrincipalToken(other, principal),
        'Not authenticated: the principal token signature is invalid.',
      ],
      [
        await issuePrincipalToken(keys, principal, { audience: 'elsewhere' }),
        `Not authenticated: the principal token's "aud" claim is not accepted.`,
      ],
      [good.slice(0, -4) + 'AAAA', 'Not authenticated: the principal token signature is invalid.'],
      ['not.a.jwt', 'Not authenticated: the principal token is malformed.'],
    ];
    for (const [token, message] of cases) {
      await expect(verifier.verify(token)).rejects.toMatchObject({
        code: 'UNAUTHENTICATED',
        category: 'denied',
        message,
      });
    }
  });

  it('token - an HS256 token (algorithm confusion) is refused', async () => {
    const keys = await generateIssuerKeys('tollgate-dev');
    const verifier = await TokenVerifier.create([{ issuer: keys.issuer, keys: [keys.publicJwk] }]);
    const forged = await new SignJWT({ tenant: 'team-a', env: 'prod' })
      .setProtectedHeader({ alg: 'HS256', kid: keys.kid })
      .setIssuer(keys.issuer)
      .setAudience('tollgate')
      .setSubject('support')
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode('x'.repeat(32)));
    await expect(verifier.verify(forged)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  });
  it("token - a trusted issuer's ip claim is the caller address; a malformed one is refused", async () => {
    const keys = await generateIssuerKeys('gateway');
    const verifier = await TokenVerifier.create([{ issuer: 'gateway', keys: [keys.publicJwk] }]);
    const principal = { tenant: 'team-a', agent: 'support', environment: 'prod' };
    const withIp = await issuePrincipalToken(keys, { ...principal, sourceIp: '10.1.2.3' });
    expect(await verifier.verify(withIp)).toMatchObject({ ...principal, sourceIp: '10.1.2.3' });
    expect(await verifier.verify(await issuePrincipalToken(keys, principal))).not.toHaveProperty(
      'sourceIp',
    );
    const bad = await issuePrincipalToken(keys, { ...principal, sourceIp: '10.0.0.0/8' });
    await expect(verifier.verify(bad)).rejects.toThrow('the token has no valid ip claim');
  });
});
