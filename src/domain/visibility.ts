/** Who may read a stack's plans, errors and audit (`/drift show`, `/drift status`, the App Home). */
export const STACK_VISIBILITIES = ['channel-or-approvers', 'everyone'] as const;
export type StackVisibility = (typeof STACK_VISIBILITIES)[number];

export interface VisibilityRules {
  /** `channel-or-approvers`: members of the stack's alert channel and people who may approve it. */
  stacks: StackVisibility;
  /** Whether Slack guests (single- and multi-channel) see anything at all. */
  guests: boolean;
}
