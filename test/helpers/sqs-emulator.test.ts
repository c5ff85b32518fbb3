import {
  DeleteMessageCommand,
  GetQueueUrlCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqsClient } from '../../src/adapters/aws/sqs-change-events.js';
import { type SqsEmulator, startSqsEmulator } from './sqs-emulator.js';

const credentials = { accessKeyId: 'AKIATESTTESTTEST0000', secretAccessKey: 'test-secret-not-real' };

let sqs: SqsEmulator;
let client: SQSClient;
beforeEach(async () => {
  sqs = await startSqsEmulator();
  client = createSqsClient({ region: 'eu-west-1', endpoint: sqs.endpoint, credentials });
});
afterEach(async () => {
  client.destroy();
  await sqs.close();
});

const receive = (QueueUrl: string, WaitTimeSeconds = 0) =>
  client.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds, MaxNumberOfMessages: 10 }));

describe('SQS emulator, through the real SDK', () => {
  it('finds a queue by name, takes a message and delivers it with a checked MD5', async () => {
    sqs.createQueue('events');
    const { QueueUrl } = await client.send(new GetQueueUrlCommand({ QueueName: 'events' }));
    await client.send(new SendMessageCommand({ QueueUrl, MessageBody: '{"hello":"wörld"}' }));
    const { Messages } = await receive(QueueUrl!);
    expect(Messages?.map((m) => m.Body)).toEqual(['{"hello":"wörld"}']);
  });

  it('refuses an unknown queue the way SQS does', async () => {
    await expect(client.send(new GetQueueUrlCommand({ QueueName: 'nope' }))).rejects.toMatchObject({
      name: 'QueueDoesNotExist',
    });
  });

  it('answers a long poll as soon as a message arrives', async () => {
    const url = sqs.createQueue('events');
    const waiting = receive(url, 20);
    await client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'late' }));
    expect((await waiting).Messages?.map((m) => m.Body)).toEqual(['late']);
  });

  it('hides a received message for the visibility timeout, then delivers it again unless deleted', async () => {
    const url = sqs.createQueue('events', { visibilityTimeoutSeconds: 30 });
    await client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'a' }));
    const first = await receive(url);
    expect(first.Messages).toHaveLength(1);
    expect((await receive(url)).Messages).toBeUndefined();
    sqs.advance(31_000);
    const again = await receive(url);
    expect(again.Messages?.[0]?.Attributes).toEqual({ ApproximateReceiveCount: '2' });
    await client.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: again.Messages![0]!.ReceiptHandle }));
    sqs.advance(31_000);
    expect((await receive(url)).Messages).toBeUndefined();
    expect(sqs.bodies('events')).toEqual([]);
  });

  it('moves a message to the dead-letter queue after maxReceiveCount receives', async () => {
    sqs.createQueue('events-dlq');
    const url = sqs.createQueue('events', { deadLetter: { queue: 'events-dlq', maxReceiveCount: 2 } });
    await client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'poison' }));
    for (let i = 0; i < 2; i++) {
      expect((await receive(url)).Messages).toHaveLength(1);
      sqs.advance(31_000);
    }
    expect((await receive(url)).Messages).toBeUndefined();
    expect(sqs.bodies('events')).toEqual([]);
    expect(sqs.bodies('events-dlq')).toEqual(['poison']);
  });

  it('refuses a receipt handle it never gave', async () => {
    const url = sqs.createQueue('events');
    await expect(
      client.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: 'made-up' })),
    ).rejects.toMatchObject({ name: 'ReceiptHandleIsInvalid' });
  });
});
