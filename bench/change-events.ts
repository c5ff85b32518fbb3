/**
 * Benchmark: one change event against 100,000 indexed resources (issue 14 targets under 1 ms an event).
 * The index is built from generated plan prior states (300 stacks of S3 buckets, objects, Lambda
 * functions and security groups, their identifiers as the real adapter takes them); the events are the
 * recorded-shape fixtures with their names rewritten, half naming a managed resource and half not.
 * Timed apart: the lookup alone (identifiers -> matches), and the whole path an event takes before a
 * check is queued (JSON.parse of the body, zod, classification, identifiers, lookup).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createClassifier } from '../src/domain/change-events/classify.js';
import { identifiersOf } from '../src/domain/change-events/identifiers.js';
import { indexEntriesOfPlan, ResourceIndex } from '../src/domain/change-events/resource-index.js';
import { type ChangeEvent, parseEventBridgeEvent } from '../src/domain/change-events/schema.js';
import type { PlanJson } from '../src/domain/plan/schema.js';
import { packageRoot } from '../src/cli/package-root.js';
import { changeEventsDayMarkdown } from './change-events-day.js';

const RESOURCES = 100_000;
const STACKS = 300;
const EVENTS = 20_000;
const RUNS = 5;
const TARGET_MS = 1;

function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
}

const ACCOUNT = '111122223333';

/** The prior state of stack `s`: its share of the resources, four kinds in turn. */
function stackPlan(s: number, count: number, first: number): PlanJson {
  const resources = [];
  for (let i = first; i < first + count; i++) {
    switch (i % 4) {
      case 0:
        resources.push({
          address: `aws_s3_bucket.b${i}`,
          mode: 'managed',
          type: 'aws_s3_bucket',
          values: { id: `bucket-${i}`, arn: `arn:aws:s3:::bucket-${i}`, bucket: `bucket-${i}` },
        });
        break;
      case 1:
        resources.push({
          address: `aws_s3_object.o${i}`,
          mode: 'managed',
          type: 'aws_s3_object',
          values: { id: `k/${i}.json`, bucket: `bucket-${i - 1}`, key: `k/${i}.json` },
        });
        break;
      case 2:
        resources.push({
          address: `aws_lambda_function.f${i}`,
          mode: 'managed',
          type: 'aws_lambda_function',
          values: {
            id: `fn-${i}`,
            arn: `arn:aws:lambda:eu-west-1:${ACCOUNT}:function:fn-${i}`,
            function_name: `fn-${i}`,
          },
        });
        break;
      default:
        resources.push({
          address: `aws_security_group.g${i}`,
          mode: 'managed',
          type: 'aws_security_group',
          values: {
            id: `sg-${i.toString(16).padStart(17, '0')}`,
            arn: `arn:aws:ec2:eu-west-1:${ACCOUNT}:security-group/sg-${i}`,
            name: `stack-${s}-sg-${i}`,
          },
        });
    }
  }
  return {
    format_version: '1.2',
    terraform_version: '1.9.8',
    prior_state: { values: { root_module: { resources } } },
  } as PlanJson;
}

function fixture(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(packageRoot(), 'test/fixtures/change-events', `${name}.json`), 'utf8'));
}

/** Event bodies as they arrive: the fixtures with their bucket, function and group renamed. */
function eventBodies(): string[] {
  const templates = [
    'console-put-object-identity-center',
    'console-put-bucket-tagging-identity-center',
    'assumed-role-sdk',
    'cli-iam-user',
  ].map((n) => JSON.stringify(fixture(n)));
  const bodies: string[] = [];
  for (let e = 0; e < EVENTS; e++) {
    // Half the events name a managed resource, half a resource no stack manages.
    const i = e % 2 === 0 ? (e * 7919) % RESOURCES : RESOURCES + e;
    const bucket = `bucket-${i - (i % 4)}`;
    bodies.push(
      templates[e % templates.length]!.replaceAll('acme-prod-assets', bucket)
        .replaceAll('config/app.json', `k/${i - (i % 4) + 1}.json`)
        .replaceAll('orders-api', `fn-${i - (i % 4) + 2}`)
        .replaceAll('sg-0a1b2c3d4e5f60718', `sg-${(i - (i % 4) + 3).toString(16).padStart(17, '0')}`),
    );
  }
  return bodies;
}

export async function benchChangeEvents(): Promise<{ markdown: string }> {
  const buildStart = performance.now();
  const index = new ResourceIndex();
  const perStack = RESOURCES / STACKS;
  for (let s = 0; s < STACKS; s++) {
    const first = Math.round(s * perStack);
    const next = Math.round((s + 1) * perStack);
    index.replaceStack(`stack-${s}`, indexEntriesOfPlan(stackPlan(s, next - first, first)));
  }
  const buildMs = performance.now() - buildStart;
  const persisted = JSON.stringify(index.toJSON());

  const bodies = eventBodies();
  const events: ChangeEvent[] = bodies.map((b) => parseEventBridgeEvent(JSON.parse(b)));
  const identifiers = events.map(identifiersOf);
  const classify = createClassifier({
    ownIdentities: [`arn:aws:iam::${ACCOUNT}:role/driftgate-*`],
    automation: [{ name: 'autoscaler', arn: `arn:aws:iam::${ACCOUNT}:role/karpenter-*` }],
  });

  const lookups: number[] = [];
  const paths: number[] = [];
  let matched = 0;
  for (let run = 0; run < RUNS; run++) {
    let t = performance.now();
    matched = 0;
    for (const ids of identifiers) if (index.match(ids).length) matched++;
    lookups.push((performance.now() - t) / EVENTS);
    t = performance.now();
    for (const body of bodies) {
      const event = parseEventBridgeEvent(JSON.parse(body));
      if (classify(event).kind === 'relevant') index.match(identifiersOf(event));
    }
    paths.push((performance.now() - t) / EVENTS);
  }
  const lookupMs = median(lookups);
  const pathMs = median(paths);
  const us = (ms: number) => `${(ms * 1000).toFixed(1)} µs`;
  const markdown = [
    `## Change events: one event against ${RESOURCES.toLocaleString('en-US')} indexed resources`,
    '',
    `${STACKS} stacks, ${index.size.toLocaleString('en-US')} resources indexed in ${Math.round(buildMs)} ms (persisted form ${(persisted.length / 1024 / 1024).toFixed(1)} MB of JSON); ${EVENTS.toLocaleString('en-US')} events from the fixtures, ${matched.toLocaleString('en-US')} of them naming a managed resource. Per event, medians of ${RUNS} runs in one process.`,
    '',
    '| measure | per event | target | result |',
    '| --- | ---: | --- | --- |',
    `| lookup (identifiers -> stack and address) | ${us(lookupMs)} | < ${TARGET_MS} ms | ${lookupMs < TARGET_MS ? 'PASS' : 'FAIL'} |`,
    `| whole path: JSON.parse, zod, classify, identifiers, lookup | ${us(pathMs)} | < ${TARGET_MS} ms | ${pathMs < TARGET_MS ? 'PASS' : 'FAIL'} |`,
    '',
    changeEventsDayMarkdown(),
  ].join('\n');
  return { markdown };
}
