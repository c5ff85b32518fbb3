import { maskUrlCredentials } from '../../domain/url-credentials.js';

/** The user name token-only HTTPS auth expects (GitHub; GitLab and Gitea accept any name with a token). */
const TOKEN_USER = 'x-access-token';

export interface GitCredentials {
  /** Environment additions for each git child: the token travels here, never in argv or the URL. */
  env: Record<string, string>;
  /** Masks the token (and its encoded header) and any user:password in URLs. */
  mask(text: string): string;
}

function httpOrigin(url: string): string | undefined {
  try {
    const u = new URL(url);
    return u.protocol === 'https:' || u.protocol === 'http:' ? `${u.protocol}//${u.host}/` : undefined;
  } catch {
    return undefined;
  }
}

/**
 * An Authorization header given to git through GIT_CONFIG_COUNT/KEY/VALUE (git >= 2.31): config from the
 * environment, so it is not in argv (visible in `ps`), not in the clone's config file and not in the URL.
 * It is scoped to the repository's origin, so a redirect to another host does not carry it.
 */
export function gitCredentials(
  url: string,
  token: string | undefined,
  inherited: Record<string, string>,
): GitCredentials {
  if (!token) return { env: {}, mask: maskUrlCredentials };
  const encoded = Buffer.from(`${TOKEN_USER}:${token}`).toString('base64');
  const origin = httpOrigin(url);
  const index = Number.parseInt(inherited.GIT_CONFIG_COUNT ?? '0', 10) || 0;
  const env = {
    GIT_CONFIG_COUNT: String(index + 1),
    [`GIT_CONFIG_KEY_${index}`]: origin ? `http.${origin}.extraHeader` : 'http.extraHeader',
    [`GIT_CONFIG_VALUE_${index}`]: `Authorization: Basic ${encoded}`,
  };
  const secrets = [token, encoded].filter((s) => s.length >= 4);
  return {
    env,
    mask: (text) => secrets.reduce((out, s) => out.split(s).join('***'), maskUrlCredentials(text)),
  };
}
