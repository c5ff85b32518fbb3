import { describe, expect, it } from 'vitest';
import { credentialsRejectedBeforeChanges, errorsFirst } from '../../../src/adapters/terraform/diagnostics.js';

/** What terraform 1.11 printed for these, with -no-color (the CLI-config warning is boxed even so). */
const CLI_CONFIG_WARNING = `There are some problems with the CLI configuration:
╷
│ Warning: Unable to open CLI configuration file
│
│ The CLI configuration file at "/nope/x.tfrc" does not exist.
╵

`;
const UNDECLARED = `
Error: Reference to undeclared input variable

  on main.tf line 2, in resource "terraform_data" "a":
   2:   input = var.missing

An input variable with the name "missing" has not been declared.
`;
const LOAD_STATE_403 =
  'Error: error loading state: Unable to list objects in S3 bucket "state" with prefix "env:/": operation error S3: ListObjectsV2, https response error StatusCode: 403, RequestID: , HostID: , api error InvalidAccessKeyId: The AWS Access Key Id you provided does not exist in our records.\n';

describe('errorsFirst', () => {
  it('puts the first Error block first and what came before it after', () => {
    const text = errorsFirst(CLI_CONFIG_WARNING + UNDECLARED, 30);
    expect(text.split('\n')[0]).toBe('Error: Reference to undeclared input variable');
    expect(text.indexOf('Warning: Unable to open CLI configuration file')).toBeGreaterThan(text.indexOf('Error:'));
  });

  it('keeps a boxed error whole, its top line included', () => {
    const boxed = '╷\n│ Error: Invalid expression\n│\n│ Expected the start of an expression.\n╵\n';
    expect(errorsFirst(CLI_CONFIG_WARNING + boxed, 30).split('\n')[0]).toBe('╷');
  });

  it('gives the end of stderr when there is no Error block, and never more than the lines asked for', () => {
    const lines = Array.from({ length: 50 }, (_, i) => `line ${i}`).join('\n');
    expect(errorsFirst(lines, 3)).toBe('line 47\nline 48\nline 49');
    expect(errorsFirst(CLI_CONFIG_WARNING + UNDECLARED, 2).split('\n')).toHaveLength(2);
  });
});

describe('credentialsRejectedBeforeChanges', () => {
  it.each([
    ['the state could not be read with an unknown key', LOAD_STATE_403, true],
    [
      'an expired session at the state lock',
      'Error: Error acquiring the state lock\n\nExpiredToken: The security token included in the request is expired\n',
      true,
    ],
    [
      'a missing permission is not an expired credential',
      LOAD_STATE_403.replace('InvalidAccessKeyId', 'AccessDenied'),
      false,
    ],
    [
      'a provider call that failed mid-apply on an expired token',
      'aws_s3_object.a: Modifying...\n\nError: updating S3 Object: ExpiredToken: expired\n',
      false,
    ],
    ['an unrelated error', UNDECLARED, false],
  ])('%s', (_, stderr, expected) => {
    expect(credentialsRejectedBeforeChanges(stderr)).toBe(expected);
  });
});
