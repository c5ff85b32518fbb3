/** terraform's action lists, reduced to one ChangeAction. */
import { PlanJsonError } from '../errors.js';
import type { ChangeAction } from './model.js';
import type { TerraformAction } from './schema.js';

export interface NormalizedAction {
  action: ChangeAction;
  replaceOrder?: 'delete-first' | 'create-first';
  /** `removed { lifecycle { destroy = false } }`: leaves management without destroying the object. */
  forget?: boolean;
}

export function normalizeActions(actions: readonly TerraformAction[], where: string): NormalizedAction {
  const key = actions.join(',');
  switch (key) {
    case 'no-op':
    case 'create':
    case 'read':
    case 'update':
    case 'delete':
      return { action: key };
    case 'delete,create':
      return { action: 'replace', replaceOrder: 'delete-first' };
    case 'create,delete':
      return { action: 'replace', replaceOrder: 'create-first' };
    // Shown as a delete: the resource leaves terraform's management, which reviewers must notice.
    case 'forget':
      return { action: 'delete', forget: true };
    case 'create,forget':
      return { action: 'create', forget: true };
    default:
      throw new PlanJsonError([{ path: `${where}.actions`, message: `unsupported combination of actions [${key}]` }]);
  }
}
