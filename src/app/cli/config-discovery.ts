import { sourceHeadCheckouts } from '../../adapters/git/source-head.js';
import type { CheckoutSourceHead } from '../../config/discover-in-source.js';

/**
 * What `discover` on `source.git` reads when a command loads its config: the branch head, checked out from
 * the clone that checks use (`<dataDir>/git/`), so discovery and checks read the same repository.
 */
export function discoveryCheckouts(env: Record<string, string | undefined>): CheckoutSourceHead {
  return sourceHeadCheckouts({ env });
}
