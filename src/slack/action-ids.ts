/**
 * Every action_id, callback_id and block_id driftgate's Slack surfaces use, in one place: the listeners
 * route on them and the renderers emit them. The four run buttons (approve, reject, remediate, view_plan)
 * are a documented public interface (docs/slack.md: "A stable interface"): each button's `value` is the run id, and scripts may
 * depend on these names, so they never change.
 */
export const ACTION_IDS = {
  approve: 'driftgate.approve',
  reject: 'driftgate.reject',
  remediate: 'driftgate.remediate',
  viewPlan: 'driftgate.view_plan',
  /** Digest button: opens the stack's own interactive message in the digest's thread; value is the run id. */
  openStack: 'driftgate.open_stack',
  /** App Home: re-render the Home tab. */
  refreshHome: 'driftgate.home_refresh',
} as const;

/** The reject modal: private_metadata holds the run id; the reason input is optional. */
export const REJECT_MODAL = {
  callbackId: 'driftgate.reject_modal',
  reasonBlockId: 'driftgate.reject_reason',
  reasonActionId: 'driftgate.reject_reason_input',
} as const;

/** block_ids of message parts other code looks up (for example to find the buttons of a message). */
export const BLOCK_IDS = {
  runActions: 'driftgate.run_actions',
  runStatus: 'driftgate.run_status',
  homeActions: 'driftgate.home_actions',
} as const;
