import { createUser, fromPublic, fromSeed } from '@nats-io/nkeys';
import { describe, expect, it } from 'vitest';
import { decodeUserSeed, userSeedAuthenticator } from '../src/bus/nkey.js';

describe('nkey - native NKey authentication', () => {
  it('nkey - the public key and signature agree with the NKeys reference implementation', () => {
    for (let i = 0; i < 20; i++) {
      const reference = createUser();
      const seed = new TextDecoder().decode(reference.getSeed());
      expect(decodeUserSeed(seed).publicKey).toBe(reference.getPublicKey());
      const auth = userSeedAuthenticator(seed)(`nonce-${i}`) as { nkey: string; sig: string };
      expect(auth.nkey).toBe(reference.getPublicKey());
      const verifier = fromPublic(auth.nkey);
      const nonce = new TextEncoder().encode(`nonce-${i}`);
      expect(verifier.verify(nonce, Buffer.from(auth.sig, 'base64'))).toBe(true);
      expect(
        verifier.verify(new TextEncoder().encode('another'), Buffer.from(auth.sig, 'base64')),
      ).toBe(false);
    }
  });

  it('nkey - a damaged seed, a public key or something else is refused', () => {
    const seed = new TextDecoder().decode(createUser().getSeed());
    const flipped = seed.slice(0, 10) + (seed[10] === 'A' ? 'B' : 'A') + seed.slice(11);
    expect(() => decodeUserSeed(flipped)).toThrow('checksum');
    const publicKey = fromSeed(new TextEncoder().encode(seed)).getPublicKey();
    expect(() => decodeUserSeed(publicKey)).toThrow('36 bytes');
    expect(() => decodeUserSeed('not a seed')).toThrow('not base32');
  });
});
