import { resourceIdentifiers } from './resource-index.js';
import { STATE_ADDRESS } from './state-address.js';

/** The index entry of a state kept as an S3 object; none for a state S3 does not hold. */
export function stateObjectEntries(object: { bucket: string; key: string } | undefined) {
  if (!object) return [];
  const identifiers = resourceIdentifiers('aws_s3_object', object);
  return identifiers.length ? [{ address: STATE_ADDRESS, identifiers }] : [];
}
