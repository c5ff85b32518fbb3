import { describe } from 'vitest';
import { recordsContract } from './records-contract.js';
import { resourceIndexContract } from './resource-index-contract.js';
import { runsContract } from './runs-contract.js';
import { slackContract } from './slack-contract.js';
import { stacksContract } from './stacks-contract.js';
import { type StoreContractTarget, useTarget } from './target.js';
import { unmatchedChangesContract } from './unmatched-changes-contract.js';
import { transactionsContract } from './transactions-contract.js';

export type { ContractStore, StoreContractTarget } from './target.js';

/**
 * The behaviour every store adapter shares, through the port alone: run it once per adapter with a
 * target that opens that adapter on a fresh database before each test.
 */
export function describeStoreContract(name: string, target: StoreContractTarget): void {
  describe(`store contract: ${name}`, () => {
    const scoped = useTarget(target);
    runsContract(scoped);
    stacksContract(scoped);
    slackContract(scoped);
    recordsContract(scoped);
    transactionsContract(scoped);
    resourceIndexContract(scoped);
    unmatchedChangesContract(scoped);
  });
}
