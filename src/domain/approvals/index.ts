export * from './model.js';
export { approvalProgress, describeGroups, evaluateApproval, notInGroup, type ApprovalRequest } from './evaluate.js';
export { authorSlackId, requirementFor } from './requirement.js';
