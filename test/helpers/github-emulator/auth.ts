/**
 * Who may call: configured tokens, and installation tokens the emulator issued to a GitHub App whose RS256
 * JWT it verified against the App's public key (node:crypto, as GitHub checks it: signature, `iss` = App
 * id, `exp` not passed and at most ten minutes ahead).
 */
import { createPublicKey, randomBytes, verify, type KeyObject } from 'node:crypto';
import { ApiError, created, notFound, type Answer } from './http.js';

export interface EmulatedApp {
  id: string | number;
  /** PEM or a KeyObject: the public half of the key the App signs its JWTs with. */
  publicKey: string | KeyObject;
  installationId: number;
}

/** How a request authenticated, as recorded in `calls` (never the token itself). */
export type AuthKind = 'none' | 'token' | 'installation' | 'jwt' | 'invalid';

export interface EmulatorAuth {
  kindOf(header: string | undefined): AuthKind;
  /** Throws GitHub's 401 unless the header carries a configured or issued token. */
  requireToken(header: string | undefined): void;
  issueInstallationToken(header: string | undefined, installationId: string): Answer;
  /** The installation tokens issued so far (for tests that check none leaked). */
  issued(): string[];
}

const TOKEN_TTL_MS = 60 * 60 * 1000;
const JWT_MAX_LIFETIME_S = 10 * 60;
/** GitHub tolerates some clock drift on `iat`. */
const SKEW_S = 60;

export function createAuth(options: { tokens: string[]; app?: EmulatedApp; now: () => Date }): EmulatorAuth {
  const installationTokens = new Map<string, Date>();
  const publicKey = options.app ? createPublicKey(options.app.publicKey) : undefined;

  const credential = (header: string | undefined) => /^(?:token|bearer)\s+(\S+)$/i.exec(header ?? '')?.[1];
  const isLiveInstallationToken = (token: string) => {
    const expires = installationTokens.get(token);
    return expires !== undefined && expires > options.now();
  };

  function kindOf(header: string | undefined): AuthKind {
    const token = credential(header);
    if (!token) return header ? 'invalid' : 'none';
    if (options.tokens.includes(token)) return 'token';
    if (isLiveInstallationToken(token)) return 'installation';
    return token.split('.').length === 3 ? 'jwt' : 'invalid';
  }

  function verifyJwt(jwt: string | undefined): void {
    const app = options.app;
    const undecodable = () => new ApiError(401, 'A JSON web token could not be decoded');
    const parts = jwt?.split('.') ?? [];
    if (!app || !publicKey || parts.length !== 3) throw undecodable();
    const [head, body, signature] = parts as [string, string, string];
    let header: { alg?: unknown };
    let claims: { iss?: unknown; exp?: unknown; iat?: unknown };
    try {
      header = JSON.parse(Buffer.from(head, 'base64url').toString('utf8'));
      claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    } catch {
      throw undecodable();
    }
    const signed = verify('RSA-SHA256', Buffer.from(`${head}.${body}`), publicKey, Buffer.from(signature, 'base64url'));
    if (header.alg !== 'RS256' || !signed || String(claims.iss) !== String(app.id)) throw undecodable();
    const now = Math.floor(options.now().getTime() / 1000);
    if (typeof claims.iat !== 'number' || claims.iat > now + SKEW_S) {
      throw new ApiError(
        401,
        "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued",
      );
    }
    if (typeof claims.exp !== 'number' || claims.exp <= now) {
      throw new ApiError(
        401,
        "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires",
      );
    }
    if (claims.exp > now + JWT_MAX_LIFETIME_S + SKEW_S)
      throw new ApiError(401, "'Expiration time' claim ('exp') is too far in the future");
  }

  return {
    kindOf,
    requireToken(header) {
      const kind = kindOf(header);
      if (kind === 'none') throw new ApiError(401, 'Requires authentication');
      if (kind !== 'token' && kind !== 'installation') throw new ApiError(401, 'Bad credentials');
    },
    issueInstallationToken(header, installationId) {
      verifyJwt(credential(header));
      if (String(options.app!.installationId) !== installationId) throw notFound();
      const token = `ghs_${randomBytes(27).toString('base64url').replace(/[-_]/g, 'x').slice(0, 36)}`;
      const expiresAt = new Date(options.now().getTime() + TOKEN_TTL_MS);
      installationTokens.set(token, expiresAt);
      return created({
        token,
        expires_at: expiresAt.toISOString().replace(/\.\d{3}Z$/, 'Z'),
        permissions: { contents: 'write', metadata: 'read', pull_requests: 'write' },
        repository_selection: 'selected',
      });
    },
    issued: () => [...installationTokens.keys()],
  };
}
