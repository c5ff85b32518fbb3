import { environmentValue } from '../../config/environment.js';
import type { DriftgateConfig } from '../../config/schema.js';
import { ConfigError } from '../../domain/errors.js';
import { type CheckResult, fail, ok, skip } from './check-result.js';

/** Every variable `pagerduty.routing` names holds an Events API v2 key: named, never shown. */
export function checkPagerduty(
  config: Pick<DriftgateConfig, 'pagerduty'>,
  env: Record<string, string | undefined>,
  settingsFor: (config: Pick<DriftgateConfig, 'pagerduty'>, env: Record<string, string | undefined>) => unknown,
): CheckResult[] {
  if (!config.pagerduty) return [skip('pagerduty', 'not configured (no pagerduty section): nobody is paged')];
  try {
    settingsFor(config, env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return err.issues.map((i) =>
      fail(
        'pagerduty',
        `${i.path} ${i.message}`,
        i.path === 'env.PAGERDUTY_EVENTS_URL'
          ? "set it to your region's Events API v2 URL, or unset it"
          : `set ${i.path.replace(/^env\./, '')} to the Events API v2 integration key of the PagerDuty service`,
      ),
    );
  }
  const names = [...new Set(config.pagerduty.routing.map((r) => r.routingKeyEnv))];
  return [ok('pagerduty', `routing keys set in ${names.join(', ')}`)];
}

/** The GitHub webhook is on exactly when its secret is set. */
export function checkWebhookSecret(env: Record<string, string | undefined>): CheckResult {
  const secret = environmentValue(env, 'GITHUB_WEBHOOK_SECRET');
  if (!secret) {
    return skip(
      'github webhook',
      'GITHUB_WEBHOOK_SECRET not set: merges are checked at the next schedule, not at once',
    );
  }
  if (secret.length < 16) {
    return fail(
      'github webhook',
      `GITHUB_WEBHOOK_SECRET is ${secret.length} characters: too short to keep forged deliveries out`,
      'set it to a random value of 32 characters or more (openssl rand -hex 32), here and in the GitHub webhook',
    );
  }
  return ok('github webhook', 'GITHUB_WEBHOOK_SECRET set: deliveries to /github/webhook are verified with it');
}
