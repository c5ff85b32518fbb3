/**
 * A stack's state object, indexed beside its resources: a write to it that is not driftgate's own apply
 * (someone's `terraform apply` or `state push` from a laptop) is the who of a state written outside
 * driftgate. No resource can have this address: `terraform` is no resource type.
 *
 * A module of its own, free of zod, because the drift causes read it on every analysis and a one-shot
 * `driftgate check` would otherwise pay for loading zod (about 50 ms) before its first plan.
 */
export const STATE_ADDRESS = 'terraform.state';

/**
 * The addresses whose writers a drift's attribution keeps: the drifted resources, and the state object,
 * drift or not, since who wrote the state explains a state_outside cause of every resource.
 */
export function attributedAddresses(drifted: Iterable<string>): Set<string> {
  return new Set([...drifted, STATE_ADDRESS]);
}
