/** Hand-made plan JSON with `resource_drift`, for the cases the real fixture does not hold. */
import { parsePlanJson, type PlanJson } from '../../../src/domain/plan/index.js';

export interface DriftRow {
  address: string;
  type?: string;
  name?: string;
  /** The real-world value (resource_drift after, resource_changes before). */
  real: Record<string, unknown>;
  /** What the code gives (resource_drift before, resource_changes after). */
  code: Record<string, unknown>;
  expressions?: Record<string, unknown>;
  driftActions?: string[];
  /** Left out of prior_state (deleted or created out of band). */
  notInPrior?: boolean;
  moduleAddress?: string;
  index?: number | string;
  /** The same marks on both sides of both changes. */
  sensitive?: Record<string, unknown>;
}

const nameOf = (row: DriftRow) => row.name ?? /([\w-]+)(\[[^\]]*\])?$/.exec(row.address)![1]!;

function change(row: DriftRow, before: unknown, after: unknown, actions: string[]) {
  const marks = row.sensitive ?? {};
  return { actions, before, after, after_unknown: {}, before_sensitive: marks, after_sensitive: marks };
}

function entry(row: DriftRow, c: ReturnType<typeof change>) {
  const type = row.type ?? 'aws_s3_object';
  const name = nameOf(row);
  return {
    address: row.address,
    ...(row.moduleAddress ? { module_address: row.moduleAddress } : {}),
    ...(row.index !== undefined ? { index: row.index } : {}),
    mode: 'managed',
    type,
    name,
    provider_name: 'registry.terraform.io/hashicorp/aws',
    change: c,
  };
}

export function driftPlan(rows: DriftRow[], extra: Record<string, unknown> = {}): PlanJson {
  return parsePlanJson(
    JSON.stringify({
      format_version: '1.2',
      terraform_version: '1.11.0',
      resource_drift: rows.map((r) => entry(r, change(r, r.code, r.real, r.driftActions ?? ['update']))),
      resource_changes: rows.map((r) => entry(r, change(r, r.real, r.code, ['update']))),
      prior_state: {
        values: {
          root_module: {
            resources: rows
              .filter((r) => !r.notInPrior)
              .map((r) => ({ address: r.address, mode: 'managed', values: r.real })),
          },
        },
      },
      configuration: {
        root_module: {
          resources: rows.map((r) => ({
            address: r.address.replace(/\[[^\]]*\]$/, ''),
            mode: 'managed',
            type: r.type ?? 'aws_s3_object',
            name: nameOf(r),
            expressions: r.expressions ?? {},
          })),
        },
      },
      ...extra,
    }),
  );
}
