import { renderShow } from '../../blocks/render-show.js';
import { loadAnalysis, loadPolicy } from '../../notifier/load-analysis.js';
import type { SlackDeps } from '../deps.js';
import type { CommandHandler } from './handler.js';

/** `/drift show`: the stack's latest run and what its plan found. */
export const handleShow: CommandHandler<'show', Pick<SlackDeps, 'stack' | 'store' | 'artifacts'>> = async (
  deps,
  command,
  _userId,
  tell,
) => {
  const stack = deps.stack(command.stack);
  if (!stack) return;
  const [run] = deps.store.listRuns({ stack: stack.name, limit: 1 });
  const analysis = run ? await loadAnalysis(deps, run.id) : undefined;
  const policy = run ? await loadPolicy(deps, run.id) : undefined;
  const stackRef = { name: stack.name, environment: stack.environment, mode: stack.mode };
  await tell(
    renderShow({
      stack: stackRef,
      ...(run ? { run } : {}),
      ...(analysis ? { analysis } : {}),
      ...(policy ? { policy } : {}),
    }),
  );
};
