import { z } from 'zod';
import type { ChangeHow, PrincipalKind } from './describe.js';

/**
 * A described change as driftgate keeps it (a run's attribution artifact, the unmatched changes in the
 * store): read back by a later version, so checked field by field. The console link is not kept: it is
 * built again from the region and event id, never trusted from storage.
 */

const KINDS = [
  'iam_user',
  'assumed_role',
  'identity_center',
  'root',
  'saml_user',
  'web_identity_user',
  'federated_user',
  'aws_service',
  'aws_account',
  'unknown',
] as const satisfies readonly PrincipalKind[];
const HOWS = [
  'console',
  'cli',
  'sdk',
  'terraform',
  'cloudformation',
  'aws_service',
  'unknown',
] as const satisfies readonly ChangeHow[];

export const StoredChangeDescription = z.object({
  principal: z.object({
    kind: z.enum(KINDS),
    arn: z.string().optional(),
    name: z.string(),
    issuer: z.string().optional(),
    display: z.string(),
  }),
  how: z.enum(HOWS),
  eventName: z.string(),
  eventSource: z.string(),
  at: z.iso.datetime({ offset: true }).transform((v) => new Date(v)),
  sourceIp: z.string().optional(),
  eventId: z.string(),
  account: z.string(),
  region: z.string(),
});
