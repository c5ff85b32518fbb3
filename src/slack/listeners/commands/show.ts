import { renderShow } from '../../blocks/render-show.js';
import { loadAnalysis, loadPolicy } from '../../notifier/load-analysis.js';
import type { CommandHandler } from './index.js';

/** `/drift show`: the stack's latest run and what its plan found. */
export const handleShow: CommandHandler<'show'> = async (deps, command, _userId, tell) => {
  const stack = deps.stack(command.stack);
  if (!stack) return;
  const [run] = deps.store.listRuns({ stack: stack.name, limit: 1 });
  const analysis = run ? await loadAnalysis(deps.services, run.id) : undefined;
  const policy = run ? await loadPolicy(deps.services, run.id) : undefined;
  const stackRef = { name: stack.name, environment: stack.environment, mode: stack.mode };
  await tell(renderShow({ stack: stackRef, ...(run ? { run } : {}), ...(analysis ? { analysis } : {}), ...(policy ? { policy } : {}) }));
};
