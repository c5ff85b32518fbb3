import { z } from 'zod';
import { DEFAULT_PAGERDUTY_EVENTS_URL, type Env, readEnvironment } from '../../config/environment.js';
import type { PagerdutyConfig } from '../../config/schema.js';
import { ConfigError } from '../../domain/errors.js';

export const DEFAULT_EVENTS_URL = DEFAULT_PAGERDUTY_EVENTS_URL;

/** An Events API v2 integration key. */
const RoutingKey = z.string().regex(/^[A-Za-z0-9]{32}$/);

export interface PagerdutySettings {
  eventsUrl: string;
  /**
   * The key in the variable `name`, read when a page is delivered: queued pages carry the variable's
   * name, so a key rotated (and the process restarted) applies to them too. Undefined when unset or malformed.
   */
  routingKey(name: string): string | undefined;
}

/**
 * PagerDuty is on when the config has a `pagerduty` section. Every variable its routing names must hold
 * a key, checked before anything starts; errors name the variable and the rule, never the value.
 */
export function pagerdutySettingsFor(
  config: { pagerduty?: Pick<PagerdutyConfig, 'routing'> },
  env: Env,
): PagerdutySettings | undefined {
  if (!config.pagerduty) return undefined;
  const { values, issues } = readEnvironment(env, ['PAGERDUTY_EVENTS_URL']);
  // The routing keys' variables are named by the config, not fixed: read here, by those names.
  const names = [...new Set(config.pagerduty.routing.map((r) => r.routingKeyEnv))];
  for (const name of names) {
    if (env[name] === undefined || env[name] === '') {
      issues.push({ path: `env.${name}`, message: 'is not set; pagerduty.routing reads the routing key from it' });
    } else if (!RoutingKey.safeParse(env[name]).success) {
      issues.push({
        path: `env.${name}`,
        message: 'must be a PagerDuty Events API v2 integration key (32 letters and digits)',
      });
    }
  }
  if (issues.length) throw new ConfigError(issues);
  return {
    eventsUrl: values.PAGERDUTY_EVENTS_URL!,
    routingKey(name) {
      const key = RoutingKey.safeParse(env[name]);
      return key.success ? key.data : undefined;
    },
  };
}
