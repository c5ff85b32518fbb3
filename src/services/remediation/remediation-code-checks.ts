/**
 * terraform's view of rewritten code, for remediation PRs: which attributes the providers let the code
 * set (from `providers schema -json`), and whether the rewritten files are fmt-clean and validate.
 */
import type { Stack } from '../../domain/stack.js';
import { errorMessage, TerraformError } from '../../domain/errors.js';
import { parseProviderSchema, settableFrom } from '../../domain/remediation/provider-schema.js';
import type { TerraformRunner } from '../../ports/terraform.js';
import type { RemediationCodeChecks } from './codify-drift.js';
import type { Logger } from '../../ports/logger.js';

export function terraformCodeChecks(
  terraform: Pick<TerraformRunner, 'providersSchema' | 'fmtCheck' | 'validate'>,
  logger: Pick<Logger, 'warn'>,
): RemediationCodeChecks {
  return {
    async settable(stack: Stack, signal?: AbortSignal) {
      try {
        return settableFrom(parseProviderSchema(await terraform.providersSchema(stack, signal ? { signal } : {})));
      } catch (err) {
        if (signal?.aborted) throw err;
        // Without the schema nothing is added to the code, only literals already there are rewritten.
        logger.warn(
          { stack: stack.name, error: errorMessage(err) },
          'provider schema unavailable: remediation adds no attributes the code does not already set',
        );
        return undefined;
      }
    },
    async unformatted(stack: Stack, files: string[], signal?: AbortSignal) {
      return (await terraform.fmtCheck(stack, files, signal ? { signal } : {})).unformatted;
    },
    async verify(stack: Stack, files: string[], signal?: AbortSignal) {
      const options = signal ? { signal } : {};
      const fmt = files.length > 0 ? await terraform.fmtCheck(stack, files, options) : undefined;
      if (fmt && fmt.unformatted.length > 0) throw new TerraformError('fmt -check', 3, fmt.diff);
      await terraform.validate(stack, options);
    },
  };
}
