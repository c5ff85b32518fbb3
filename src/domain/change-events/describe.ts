import type { ChangeEvent, UserIdentity } from './schema.js';

export type PrincipalKind =
  | 'iam_user'
  | 'assumed_role'
  | 'identity_center'
  | 'root'
  | 'saml_user'
  | 'web_identity_user'
  | 'federated_user'
  | 'aws_service'
  | 'aws_account'
  | 'unknown';

export interface Principal {
  kind: PrincipalKind;
  /** The principal's ARN as CloudTrail gave it (an assumed-role session's `sts` ARN), when it has one. */
  arn?: string;
  /** The user name, session name (an Identity Center session is named after the person), or service. */
  name: string;
  /** For a session: the role it was issued from. */
  issuer?: string;
  /** One line for people: `alice (IAM user)`, `deploy-bot via role ci-deployer`. Untrusted text. */
  display: string;
}

export type ChangeHow = 'console' | 'cli' | 'sdk' | 'terraform' | 'cloudformation' | 'aws_service' | 'unknown';

/** Who changed what, how and when: what the drift alert and the policy input say about one event. */
export interface ChangeDescription {
  principal: Principal;
  how: ChangeHow;
  eventName: string;
  eventSource: string;
  at: Date;
  sourceIp?: string;
  eventId: string;
  account: string;
  region: string;
  /** The event in the CloudTrail console; absent when the region or event id do not look like AWS's. */
  consoleUrl?: string;
}

/**
 * Identity Center sessions assume a role AWS creates under its reserved path (with the region in newer
 * accounts), named after the permission set. The whole ARN is matched: a role anyone may create can hold
 * `aws-reserved/sso.amazonaws.com/` further down its path, and the session name of such a role is chosen
 * by whoever assumes it.
 */
const SSO_ROLE_ARN =
  /^arn:aws[a-z-]*:iam::\d{12}:role\/aws-reserved\/sso\.amazonaws\.com\/(?:[a-z0-9-]+\/)?AWSReservedSSO_[\w+=,.@-]+$/;

const lastSegment = (arn: string) => arn.slice(arn.lastIndexOf('/') + 1);

function describePrincipal(identity: UserIdentity, account: string): Principal {
  const arn = identity.arn;
  const base = arn ? { arn } : {};
  switch (identity.type) {
    case 'IAMUser': {
      const name = identity.userName ?? (arn ? lastSegment(arn) : (identity.principalId ?? 'unknown'));
      return { kind: 'iam_user', ...base, name, display: `${name} (IAM user)` };
    }
    case 'AssumedRole': {
      const issuer = identity.sessionContext?.sessionIssuer;
      const session = arn ? lastSegment(arn) : (identity.principalId?.split(':')[1] ?? 'unknown');
      const role = issuer?.userName ?? (issuer?.arn ? lastSegment(issuer.arn) : 'unknown role');
      const withIssuer = issuer?.arn ? { issuer: issuer.arn } : {};
      if (issuer?.arn && SSO_ROLE_ARN.test(issuer.arn)) {
        // AWSReservedSSO_<PermissionSet>_<hash>: the permission set is what people know.
        const permissionSet = /^AWSReservedSSO_(.+)_[0-9a-f]+$/.exec(role)?.[1] ?? role;
        return {
          kind: 'identity_center',
          ...base,
          name: session,
          ...withIssuer,
          display: `${session} (Identity Center, ${permissionSet})`,
        };
      }
      return { kind: 'assumed_role', ...base, name: session, ...withIssuer, display: `${session} via role ${role}` };
    }
    case 'Root':
      return { kind: 'root', ...base, name: 'root', display: `root (account ${identity.accountId ?? account})` };
    case 'IdentityCenterUser': {
      const name = identity.userName ?? identity.onBehalfOf?.userId ?? identity.principalId ?? 'unknown';
      return { kind: 'identity_center', ...base, name, display: `${name} (Identity Center)` };
    }
    case 'SAMLUser': {
      const name = identity.userName ?? identity.principalId ?? 'unknown';
      return { kind: 'saml_user', ...base, name, display: `${name} (SAML)` };
    }
    case 'WebIdentityUser': {
      const name = identity.userName ?? identity.principalId ?? 'unknown';
      const provider = identity.identityProvider ? `, ${identity.identityProvider}` : '';
      return { kind: 'web_identity_user', ...base, name, display: `${name} (web identity${provider})` };
    }
    case 'FederatedUser': {
      const name = arn ? lastSegment(arn) : (identity.principalId ?? 'unknown');
      return { kind: 'federated_user', ...base, name, display: `${name} (federated user)` };
    }
    case 'AWSService': {
      const name = identity.invokedBy ?? 'an AWS service';
      return { kind: 'aws_service', ...base, name, display: name };
    }
    case 'AWSAccount': {
      const name = identity.accountId ?? identity.principalId ?? 'unknown';
      return { kind: 'aws_account', ...base, name, display: `account ${name}` };
    }
    default: {
      const name = identity.userName ?? identity.principalId ?? identity.type;
      return { kind: 'unknown', ...base, name, display: `${name} (${identity.type})` };
    }
  }
}

/**
 * The keys `changeEvents.slackUsers` may map a principal by to mention a person: only names AWS sets.
 * An Identity Center session is named by AWS after the person's user name; an IAM user is known by its
 * ARN, as its bare name could be made again in any account (`alice@example.com` is a valid user name).
 * Any other session is named by its caller (`RoleSessionName`, anyone who may assume the role picks it)
 * and a role is shared by everyone who may assume it: neither names a person, so they are never mentioned.
 */
export function slackUserKeys(principal: Principal): string[] {
  const arn = principal.arn ? [principal.arn] : [];
  if (principal.kind === 'iam_user') return arn;
  if (principal.kind === 'identity_center') return [...arn, principal.name];
  return [];
}

/**
 * How the call was made, from what the caller's client said. Order matters: terraform's and the CLI's
 * user agents also name the SDK they are built on (`aws-sdk-go`, `botocore`).
 */
export function changeHow(event: ChangeEvent): ChangeHow {
  const { record } = event;
  const agent = record.userAgent ?? '';
  if (record.sessionCredentialFromConsole === true || agent.includes('console.amazonaws.com')) return 'console';
  if (agent.includes('Terraform/') || agent.includes('HashiCorp')) return 'terraform';
  if (agent.includes('cloudformation.amazonaws.com')) return 'cloudformation';
  if (agent.includes('aws-cli/')) return 'cli';
  if (record.userIdentity.type === 'AWSService' || /^[a-z0-9-]+\.amazonaws\.com$/.test(agent)) return 'aws_service';
  if (/aws-sdk-|Boto3|botocore/i.test(agent)) return 'sdk';
  return 'unknown';
}

/** An AWS region's name (eu-west-1, us-gov-west-1): also what the config accepts as one. */
export const AWS_REGION = /^[a-z]{2}(-[a-z]+)+-\d{1,2}$/;
const EVENT_ID = /^[0-9a-zA-Z-]{8,64}$/;

/** The CloudTrail console's page of one event; built only from values shaped like AWS's own. */
export function cloudTrailConsoleUrl(region: string, eventId: string): string | undefined {
  if (!AWS_REGION.test(region) || !EVENT_ID.test(eventId)) return undefined;
  return `https://${region}.console.aws.amazon.com/cloudtrail/home?region=${region}#/events/${eventId}`;
}

export function describeChange(event: ChangeEvent): ChangeDescription {
  const { record } = event;
  const region = record.awsRegion || event.region;
  const consoleUrl = cloudTrailConsoleUrl(region, record.eventID);
  return {
    principal: describePrincipal(record.userIdentity, event.account),
    how: changeHow(event),
    eventName: record.eventName,
    eventSource: record.eventSource,
    at: new Date(record.eventTime),
    ...(record.sourceIPAddress ? { sourceIp: record.sourceIPAddress } : {}),
    eventId: record.eventID,
    account: event.account,
    region,
    ...(consoleUrl ? { consoleUrl } : {}),
  };
}
