export * from './model.js';
export {
  describeGroups,
  describeMissing,
  evaluateApproval,
  evaluateApprovals,
  notInGroup,
  progressOf,
  type ApprovalRequest,
  type ApprovalsRequest,
} from './evaluate.js';
export { authorSlackId, requirementFor } from './requirement.js';
