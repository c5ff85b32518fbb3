import { resourceIdentifiers } from './resource-index.js';

/**
 * A stack's state object, indexed beside its resources: a write to it that is not driftgate's own apply
 * (someone's `terraform apply` or `state push` from a laptop) is the who of a state written outside
 * driftgate. No resource can have this address: `terraform` is no resource type.
 */
export const STATE_ADDRESS = 'terraform.state';

/** The index entry of a state kept as an S3 object; none for a state S3 does not hold. */
export function stateObjectEntries(object: { bucket: string; key: string } | undefined) {
  if (!object) return [];
  const identifiers = resourceIdentifiers('aws_s3_object', object);
  return identifiers.length ? [{ address: STATE_ADDRESS, identifiers }] : [];
}
