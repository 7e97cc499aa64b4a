/**
 * NKey authentication with Node's own Ed25519. nats.js signs the server's nonce with a pure-JS
 * Ed25519 (re-deriving the key pair on every connect); on a loaded machine that took seconds
 * and ran into the connect timeout. This decodes the seed once and signs natively (~0.1 ms).
 * The encoding is the NKeys one: base32 of prefix bytes, the 32-byte key and a CRC-16.
 */
import { createPrivateKey, createPublicKey, sign } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import type { Authenticator } from '@nats-io/transport-node';

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
/** Prefix byte of a user public key ('U'), and of any seed ('S'). */
const PREFIX_USER = 20 << 3;
const PREFIX_SEED = 18 << 3;
/** PKCS#8 DER header of an Ed25519 private key; the 32-byte seed follows. */
const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');

function base32Decode(text: string): Buffer {
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const ch of text) {
    const index = BASE32.indexOf(ch);
    if (index < 0) throw new Error('not base32');
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

function base32Encode(bytes: Uint8Array): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

/** CRC-16/XMODEM, as NKeys checksum their encodings. */
function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++)
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** The private key and public NKey (`U…`) of a user seed (`SU…`); throws on a bad seed. */
export function decodeUserSeed(seed: string): { privateKey: KeyObject; publicKey: string } {
  const raw = base32Decode(seed.trim());
  if (raw.length !== 36) throw new Error('an NKey seed decodes to 36 bytes');
  const body = raw.subarray(0, 34);
  if (raw.readUInt16LE(34) !== crc16(body))
    throw new Error('the NKey seed checksum does not match');
  const kind = ((raw[0]! & 7) << 5) | ((raw[1]! & 0xf8) >> 3);
  if ((raw[0]! & 0xf8) !== PREFIX_SEED || kind !== PREFIX_USER)
    throw new Error('not an NKey user seed');
  const privateKey = createPrivateKey({
    key: Buffer.concat([PKCS8_ED25519, raw.subarray(2, 34)]),
    format: 'der',
    type: 'pkcs8',
  });
  const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  const pub = Buffer.concat([Buffer.from([PREFIX_USER]), spki.subarray(spki.length - 32)]);
  const check = Buffer.alloc(2);
  check.writeUInt16LE(crc16(pub));
  return { privateKey, publicKey: base32Encode(Buffer.concat([pub, check])) };
}

/** An nats.js authenticator for a user seed: the public key and the signed nonce. */
export function userSeedAuthenticator(seed: string): Authenticator {
  const { privateKey, publicKey } = decodeUserSeed(seed);
  return (nonce?: string) => ({
    nkey: publicKey,
    sig: nonce ? sign(null, new TextEncoder().encode(nonce), privateKey).toString('base64') : '',
  });
}
