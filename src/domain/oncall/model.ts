/** PagerDuty's event severities. */
export const PAGE_SEVERITIES = ['critical', 'error', 'warning', 'info'] as const;
export type PageSeverity = (typeof PAGE_SEVERITIES)[number];

/** Which stacks page through which routing key; an absent criterion matches every stack. */
export interface PageRoutingRule {
  environments?: string[];
  stacks?: string;
  /** The variable holding the routing key, never the key. */
  routingKeyEnv: string;
}

/** The pagerduty section once validated: routing rules (first match wins) and environment -> severity. */
export interface PagingRules {
  routing: PageRoutingRule[];
  severity: Record<string, PageSeverity>;
}
