import { InvalidTransitionError } from '../../../domain/errors.js';
import { canTransition, type RunState } from '../../../domain/run/state.js';

/**
 * The states a transition may start from. A pair the state machine forbids is a bug in the caller, not a
 * lost race: it throws before any write.
 */
export function transitionSources(id: string, from: RunState | readonly RunState[], to: RunState): readonly RunState[] {
  const fromStates: readonly RunState[] = typeof from === 'string' ? [from] : from;
  const impossible = fromStates.filter((f) => !canTransition(f, to));
  if (fromStates.length === 0 || impossible.length > 0) {
    throw new InvalidTransitionError(id, (impossible.length ? impossible : fromStates).join('|') || '(none)', to);
  }
  return fromStates;
}
