export { hclLiteral, quoteString } from './hcl-literal.js';
export {
  type AttributeEdit,
  type AttributePath,
  formatPath,
  type RewriteResult,
  rewriteAttribute,
} from './rewrite-attribute.js';
export {
  planRemediation,
  type RemediationEdit,
  type RemediationOptions,
  type RemediationPlan,
  type RemediationSkip,
  type SkipCode,
  type StackFile,
} from './plan-remediation.js';
export {
  type AttributeSchema,
  type BlockSchema,
  type NestingMode,
  parseProviderSchema,
  type ProviderSchema,
  ProviderSchemaError,
  sensitiveFrom,
  settableFrom,
} from './provider-schema.js';
