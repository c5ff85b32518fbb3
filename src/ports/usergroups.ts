import type { ApproverRules } from '../domain/approvals/model.js';

/** Who is in which approver group; adapters/slack/usergroups.ts answers it from Slack's user groups. */
export interface UsergroupResolver {
  /**
   * The approver groups (names in `approvers.groups`) the user belongs to: listed in the group's `users`,
   * or a member of one of its Slack user groups. `among` limits the check to some groups, to spare Slack
   * calls for groups that do not matter. Throws ExternalServiceError when Slack cannot say: the caller
   * refuses rather than guesses.
   */
  groupsOf(userId: string, approvers: ApproverRules, among?: string[]): Promise<string[]>;
}
