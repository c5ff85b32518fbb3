/**
 * A Terraform stack of `aws_s3_object`s on the local S3 server (s3rver.ts), and the out-of-band edits
 * that make `terraform plan` report real `resource_drift` on them.
 *
 * - `s3ObjectStackHcl(options)`: the stack's main.tf text (fmt-clean). It names no port: the endpoint
 *   comes from `var.s3_endpoint` and the credentials from the environment, so the same text can be
 *   committed once to a test repository (git-repo.ts) and planned against any server.
 * - `s3StackSettings(s3)`: the `vars` and `env` a Stack (or a config's stack entry) needs for it.
 * - `s3TestClient(s3)`: an S3 client that s3rver understands.
 * - `changeOutOfBand(client, bucket, key, change)`: content type, user metadata and/or tags changed the
 *   way a person in the console would, everything else kept.
 * - `tagAsCreated(client, bucket, objects)`: works around s3rver ignoring tags sent with PutObject.
 */
import { CopyObjectCommand, HeadObjectCommand, PutObjectTaggingCommand, S3Client } from '@aws-sdk/client-s3';
import type { LocalS3 } from './s3rver.js';

export interface S3ObjectSpec {
  /** `aws_s3_object.<name>`. */
  name: string;
  key: string;
  content: string;
  /** Left out: the code sets no content_type (the provider computes one). */
  contentType?: string;
  /** Left out: the code sets no metadata at all. Keys in lower case: S3 lower-cases them. */
  metadata?: Record<string, string>;
  tags?: Record<string, string>;
}

export interface S3ObjectStackOptions {
  bucket: string;
  objects: S3ObjectSpec[];
  /**
   * Declare the bucket as `aws_s3_bucket.<name>` (the objects then refer to it); s3rver answers enough of
   * the provider's bucket reads for that. Left out: start the server with the bucket (startLocalS3([bucket])).
   */
  bucketResource?: string;
  /** A local backend at this path: for a git worktree, which is removed after each check with its state. */
  statePath?: string;
}

/** An HCL string literal; templates are escaped since the values are data. */
function hclString(value: string): string {
  return JSON.stringify(value).replace(/\$\{/g, '$$${').replace(/%\{/g, '%%{');
}

/** `name = value` lines with the `=` aligned as `terraform fmt` aligns them. */
function aligned(entries: [string, string][], indent: string): string[] {
  const width = Math.max(...entries.map(([k]) => k.length));
  return entries.map(([k, v]) => `${indent}${k.padEnd(width)} = ${v}`);
}

function mapBlock(name: string, map: Record<string, string>): string[] {
  const keys = Object.entries(map).map(([k, v]): [string, string] => [
    /^[A-Za-z_][\w-]*$/.test(k) ? k : hclString(k),
    hclString(v),
  ]);
  return ['', `  ${name} = {`, ...aligned(keys, '    '), '  }'];
}

function objectBlock(o: S3ObjectSpec, bucketExpr: string): string {
  const scalars: [string, string][] = [
    ['bucket', bucketExpr],
    ['key', hclString(o.key)],
    ['content', hclString(o.content)],
    ...(o.contentType !== undefined ? [['content_type', hclString(o.contentType)] as [string, string]] : []),
  ];
  return [
    `resource "aws_s3_object" "${o.name}" {`,
    ...aligned(scalars, '  '),
    ...(o.metadata ? mapBlock('metadata', o.metadata) : []),
    ...(o.tags ? mapBlock('tags', o.tags) : []),
    '}',
  ].join('\n');
}

export function s3ObjectStackHcl(options: S3ObjectStackOptions): string {
  const backend = options.statePath ? `\n  backend "local" {\n    path = ${hclString(options.statePath)}\n  }\n` : '';
  const head = `terraform {
  required_providers {
    aws = { source = "hashicorp/aws" }
  }${backend ? `\n${backend}` : '\n'}}

variable "s3_endpoint" {
  type = string
}

provider "aws" {
  region                      = "us-east-1"
  s3_use_path_style           = true
  skip_credentials_validation = true
  skip_metadata_api_check     = true
  skip_requesting_account_id  = true
  skip_region_validation      = true

  endpoints {
    s3 = var.s3_endpoint
  }
}
`;
  const bucket = options.bucketResource
    ? `resource "aws_s3_bucket" "${options.bucketResource}" {\n  bucket = ${hclString(options.bucket)}\n}\n`
    : '';
  const bucketExpr = options.bucketResource
    ? `aws_s3_bucket.${options.bucketResource}.bucket`
    : hclString(options.bucket);
  const objects = options.objects.map((o) => objectBlock(o, bucketExpr));
  return [head, bucket, ...objects.map((o) => `${o}\n`)].filter(Boolean).join('\n');
}

/** Endpoint as a var, credentials in the environment: as in production, nothing in HCL or argv. */
export function s3StackSettings(s3: LocalS3): { vars: Record<string, string>; env: Record<string, string> } {
  return {
    vars: { s3_endpoint: s3.endpoint },
    env: {
      AWS_ACCESS_KEY_ID: s3.accessKeyId,
      AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
      AWS_EC2_METADATA_DISABLED: 'true',
    },
  };
}

/** Without WHEN_REQUIRED checksums the SDK sends aws-chunked bodies, which s3rver stores framing and all. */
export function s3TestClient(s3: LocalS3): S3Client {
  return new S3Client({
    endpoint: s3.endpoint,
    region: s3.region,
    forcePathStyle: true,
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

export interface OutOfBandChange {
  contentType?: string;
  /** Replaces the whole user metadata (S3 has no per-key update); S3 lower-cases the keys. */
  metadata?: Record<string, string>;
  /** Replaces the whole tag set. */
  tags?: Record<string, string>;
}

function putTags(client: S3Client, bucket: string, key: string, tags: Record<string, string>) {
  const TagSet = Object.entries(tags).map(([Key, Value]) => ({ Key, Value }));
  return client.send(new PutObjectTaggingCommand({ Bucket: bucket, Key: key, Tagging: { TagSet } }));
}

/**
 * Headers change through CopyObject onto itself with MetadataDirective REPLACE, the only way S3 changes
 * them. REPLACE drops every header not sent, so those not changed are read first and sent again. Tags are
 * kept by the copy (TaggingDirective defaults to COPY; s3rver stores them apart from the object).
 */
export async function changeOutOfBand(
  client: S3Client,
  bucket: string,
  key: string,
  change: OutOfBandChange,
): Promise<void> {
  if (change.contentType !== undefined || change.metadata !== undefined) {
    const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    await client.send(
      new CopyObjectCommand({
        Bucket: bucket,
        Key: key,
        CopySource: `${bucket}/${encodeURIComponent(key)}`,
        MetadataDirective: 'REPLACE',
        ContentType: change.contentType ?? head.ContentType,
        CacheControl: head.CacheControl,
        ContentDisposition: head.ContentDisposition,
        ContentEncoding: head.ContentEncoding,
        ContentLanguage: head.ContentLanguage,
        Metadata: change.metadata ?? head.Metadata,
      }),
    );
  }
  if (change.tags) await putTags(client, bucket, key, change.tags);
}

/**
 * s3rver drops the `x-amz-tagging` header of PutObject, so objects terraform creates have no tags and
 * every plan after the first apply would show their tags as drift. This stores the tags the code gives,
 * as real S3 does on create; call it after the apply that created them. (Updates send PutObjectTagging,
 * which s3rver keeps.)
 */
export async function tagAsCreated(client: S3Client, bucket: string, objects: readonly S3ObjectSpec[]): Promise<void> {
  for (const o of objects) if (o.tags) await putTags(client, bucket, o.key, o.tags);
}
