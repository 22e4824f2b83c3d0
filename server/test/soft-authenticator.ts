import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

/**
 * A software WebAuthn authenticator for tests without a browser: a P-256 key, `none` attestation,
 * a signature counter, written from the WebAuthn Level 2 data layouts (authenticator data, COSE
 * keys, CBOR) and independent of the library the server verifies with. The dashboard journey uses
 * Chromium's virtual authenticator instead.
 */

type Cbor = number | string | Uint8Array | Map<Cbor, Cbor>;

/** The CBOR subset WebAuthn needs: small integers, byte and text strings, maps (RFC 8949). */
function cbor(value: Cbor): Buffer {
  const head = (major: number, n: number): Buffer => {
    if (n < 24) return Buffer.from([(major << 5) | n]);
    if (n < 256) return Buffer.from([(major << 5) | 24, n]);
    if (n < 65536) return Buffer.from([(major << 5) | 25, n >> 8, n & 255]);
    const b = Buffer.alloc(5);
    b[0] = (major << 5) | 26;
    b.writeUInt32BE(n, 1);
    return b;
  };
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') return Buffer.concat([head(3, Buffer.byteLength(value)), Buffer.from(value)]);
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), Buffer.from(value)]);
  return Buffer.concat([head(5, value.size), ...[...value].flatMap(([k, v]) => [cbor(k), cbor(v)])]);
}

const b64url = (b: Uint8Array | string) => Buffer.from(b).toString('base64url');
const sha256 = (b: Uint8Array | string) => createHash('sha256').update(b).digest();

/** What the server sends as options (the parts an authenticator reads). */
interface CreationOptions { challenge: string; rp: { id?: string }; user: { id: string } }
interface RequestOptions { challenge: string; rpId?: string }

export class SoftAuthenticator {
  readonly credentialId = randomBytes(16);
  private readonly keys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  private counter = 0;
  private userHandle = '';

  constructor(readonly origin: string) {}

  private authenticatorData(rpId: string, flags: number, attested?: Buffer): Buffer {
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(this.counter);
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), counter, ...(attested ? [attested] : [])]);
  }

  private coseKey(): Buffer {
    const jwk = this.keys.publicKey.export({ format: 'jwk' }) as { x: string; y: string };
    return cbor(new Map<Cbor, Cbor>([[1, 2], [3, -7], [-1, 1], [-2, Buffer.from(jwk.x, 'base64url')], [-3, Buffer.from(jwk.y, 'base64url')]]));
  }

  /**
   * The answer of navigator.credentials.create() to these options, as JSON. Overrides forge it:
   * another origin or challenge, no user verification, another attestation format.
   */
  create(options: CreationOptions, override: { origin?: string; challenge?: string; unverified?: boolean; fmt?: string } = {}) {
    const rpId = options.rp.id!;
    this.userHandle = options.user.id;
    const clientDataJSON = JSON.stringify({ type: 'webauthn.create', challenge: override.challenge ?? options.challenge, origin: override.origin ?? this.origin, crossOrigin: false });
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.credentialId.length);
    const attested = Buffer.concat([Buffer.alloc(16), idLength, this.credentialId, this.coseKey()]);
    // Flags: user present (0x01), user verified (0x04), attested credential data (0x40).
    const authData = this.authenticatorData(rpId, override.unverified ? 0x41 : 0x45, attested);
    const attestationObject = cbor(new Map<Cbor, Cbor>([['fmt', override.fmt ?? 'none'], ['attStmt', new Map()], ['authData', authData]]));
    return {
      id: b64url(this.credentialId), rawId: b64url(this.credentialId), type: 'public-key' as const,
      response: { clientDataJSON: b64url(clientDataJSON), attestationObject: b64url(attestationObject), transports: ['internal'] },
      clientExtensionResults: {},
    };
  }

  /** The answer of navigator.credentials.get() to these options, as JSON; the counter moves on by one. */
  get(options: RequestOptions, override: { origin?: string; signWith?: KeyObject; unverified?: boolean; userHandle?: string } = {}) {
    this.counter++;
    const clientDataJSON = JSON.stringify({ type: 'webauthn.get', challenge: options.challenge, origin: override.origin ?? this.origin, crossOrigin: false });
    const authData = this.authenticatorData(options.rpId!, override.unverified ? 0x01 : 0x05);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), override.signWith ?? this.keys.privateKey);
    return {
      id: b64url(this.credentialId), rawId: b64url(this.credentialId), type: 'public-key' as const,
      response: { clientDataJSON: b64url(clientDataJSON), authenticatorData: b64url(authData), signature: b64url(signature), ...((override.userHandle ?? this.userHandle) ? { userHandle: override.userHandle ?? this.userHandle } : {}) },
      clientExtensionResults: {},
    };
  }
}
