/** Hand-made plan JSON for edge cases real terraform_data cannot produce on demand. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURE_SECRETS } from '../../fixtures/plans/make-fixtures.js';

export const FIXTURE_DIR = join(import.meta.dirname, '../../fixtures/plans');

export function readFixture(name: string): string {
  return readFileSync(join(FIXTURE_DIR, name), 'utf8');
}

export const REAL_FIXTURES = [
  'data-create.json',
  'data-changes.json',
  'data-no-changes.json',
  's3-drift.json',
] as const;

export const ALL_FIXTURE_SECRETS: string[] = Object.values(FIXTURE_SECRETS);

export interface ChangeSpec {
  address: string;
  actions: string[];
  before?: unknown;
  after?: unknown;
  after_unknown?: unknown;
  before_sensitive?: unknown;
  after_sensitive?: unknown;
  replace_paths?: (string | number)[][];
  previous_address?: string;
  action_reason?: string;
  importing?: { id: string };
}

export function resourceChange(spec: ChangeSpec): Record<string, unknown> {
  const parts = spec.address.split('.');
  const name = parts.at(-1)!.replace(/\[.*$/, '');
  const type = parts.at(-2)!;
  const { address, previous_address, action_reason, ...change } = spec;
  return {
    address,
    ...(previous_address ? { previous_address } : {}),
    mode: 'managed',
    type,
    name,
    provider_name: 'terraform.io/builtin/terraform',
    change: {
      before: null,
      after: null,
      after_unknown: {},
      before_sensitive: false,
      after_sensitive: false,
      ...change,
    },
    ...(action_reason ? { action_reason } : {}),
  };
}

export function makePlan(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    format_version: '1.2',
    terraform_version: '1.11.4',
    applyable: true,
    complete: true,
    errored: false,
    ...extra,
  };
}

export function planText(extra: Record<string, unknown> = {}): string {
  return JSON.stringify(makePlan(extra));
}
