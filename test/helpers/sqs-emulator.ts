/**
 * An SQS stand-in on a real loopback port, speaking the AWS JSON 1.0 protocol @aws-sdk/client-sqs 3.1175
 * uses (`X-Amz-Target: AmazonSQS.<Operation>`, `__type: com.amazonaws.sqs#<Error>`). It keeps SQS's
 * delivery rules: a received message is invisible for the visibility timeout and comes back unless
 * deleted with its latest receipt handle; long polling (WaitTimeSeconds, up to 20) answers as soon as a
 * message is visible; and a queue with a redrive policy moves a message to its dead-letter queue instead
 * of delivering it more than maxReceiveCount times. MD5OfBody is computed, since the SDK checks it.
 * Time is real, plus what `advance(ms)` adds: a test moves past a visibility timeout without waiting.
 */
import { createHash, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readRaw } from './slack-emulator/read-body.js';

export const SQS_ACCOUNT = '111122223333';

export interface QueueOptions {
  visibilityTimeoutSeconds?: number;
  /** SQS's redrive policy: after `maxReceiveCount` receives, the next receive moves it to `queue`. */
  deadLetter?: { queue: string; maxReceiveCount: number };
}

interface Message {
  id: string;
  body: string;
  receiveCount: number;
  visibleAt: number;
  receiptHandle?: string;
}

interface Queue {
  name: string;
  options: QueueOptions;
  messages: Message[];
}

export interface SqsCall {
  operation: string;
  body: Record<string, unknown>;
  status: number;
}

export interface SqsEmulator {
  readonly endpoint: string;
  createQueue(name: string, options?: QueueOptions): string;
  queueUrl(name: string): string;
  /** Bodies in the queue, visible or in flight, oldest first. */
  bodies(name: string): string[];
  /** Moves the emulator's clock: visibility timeouts run out without a real wait. */
  advance(ms: number): void;
  calls(): SqsCall[];
  /** Requests being answered now (a long poll waiting). */
  inFlight(): number;
  /** Requests the client closed before the answer (a long poll it cancelled). */
  abandoned(): number;
  close(): Promise<void>;
}

const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');

class SqsFault extends Error {
  constructor(
    readonly type: string,
    message: string,
    /** The awsQueryCompatible code the SDK reads from `x-amzn-query-error`. */
    readonly queryCode: string,
  ) {
    super(message);
  }
}

const noQueue = () =>
  new SqsFault('QueueDoesNotExist', 'The specified queue does not exist.', 'AWS.SimpleQueueService.NonExistentQueue');

export async function startSqsEmulator(): Promise<SqsEmulator> {
  const queues = new Map<string, Queue>();
  const calls: SqsCall[] = [];
  let offset = 0;
  let inFlight = 0;
  let abandoned = 0;
  const now = () => Date.now() + offset;
  let base = '';

  const queueOf = (url: unknown): Queue => {
    const name = typeof url === 'string' ? url.split('/').pop() : undefined;
    const queue = name ? queues.get(name) : undefined;
    if (!queue || url !== `${base}/${SQS_ACCOUNT}/${name}`) throw noQueue();
    return queue;
  };

  /** Visible messages, moving to the DLQ those received maxReceiveCount times already. */
  const takeVisible = (queue: Queue, max: number, visibilitySeconds: number): Message[] => {
    const taken: Message[] = [];
    for (const message of [...queue.messages]) {
      if (taken.length >= max) break;
      if (message.visibleAt > now()) continue;
      const dlq = queue.options.deadLetter;
      if (dlq && message.receiveCount >= dlq.maxReceiveCount) {
        queue.messages.splice(queue.messages.indexOf(message), 1);
        const target = queues.get(dlq.queue);
        if (target) target.messages.push({ id: message.id, body: message.body, receiveCount: 0, visibleAt: 0 });
        continue;
      }
      message.receiveCount++;
      message.visibleAt = now() + visibilitySeconds * 1000;
      message.receiptHandle = `${message.id}#${randomUUID()}`;
      taken.push(message);
    }
    return taken;
  };

  async function receive(body: Record<string, unknown>, closed: () => boolean): Promise<unknown> {
    const queue = queueOf(body.QueueUrl);
    const max = typeof body.MaxNumberOfMessages === 'number' ? body.MaxNumberOfMessages : 1;
    if (max < 1 || max > 10)
      throw new SqsFault('InvalidParameterValue', 'MaxNumberOfMessages must be 1 to 10', 'InvalidParameterValue');
    const wait = typeof body.WaitTimeSeconds === 'number' ? body.WaitTimeSeconds : 0;
    if (wait < 0 || wait > 20)
      throw new SqsFault('InvalidParameterValue', 'WaitTimeSeconds must be 0 to 20', 'InvalidParameterValue');
    const visibility =
      typeof body.VisibilityTimeout === 'number'
        ? body.VisibilityTimeout
        : (queue.options.visibilityTimeoutSeconds ?? 30);
    const deadline = Date.now() + wait * 1000;
    for (;;) {
      const taken = takeVisible(queue, max, visibility);
      // Long polling: answer at the first visible message, else when the wait is over.
      if (taken.length || Date.now() >= deadline || closed()) {
        if (!taken.length) return {};
        return {
          Messages: taken.map((m) => ({
            MessageId: m.id,
            ReceiptHandle: m.receiptHandle,
            MD5OfBody: md5(m.body),
            Body: m.body,
            Attributes: { ApproximateReceiveCount: String(m.receiveCount) },
          })),
        };
      }
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  const operations: Record<string, (body: Record<string, unknown>, closed: () => boolean) => unknown> = {
    GetQueueUrl: (body) => {
      if (typeof body.QueueName !== 'string' || !queues.has(body.QueueName)) throw noQueue();
      return { QueueUrl: `${base}/${SQS_ACCOUNT}/${body.QueueName}` };
    },
    SendMessage: (body) => {
      const queue = queueOf(body.QueueUrl);
      if (typeof body.MessageBody !== 'string' || body.MessageBody.length === 0)
        throw new SqsFault(
          'MissingParameter',
          'The request must contain the parameter MessageBody.',
          'MissingParameter',
        );
      const delay = typeof body.DelaySeconds === 'number' ? body.DelaySeconds : 0;
      const id = randomUUID();
      queue.messages.push({ id, body: body.MessageBody, receiveCount: 0, visibleAt: now() + delay * 1000 });
      return { MessageId: id, MD5OfMessageBody: md5(body.MessageBody) };
    },
    ReceiveMessage: receive,
    GetQueueAttributes: (body) => {
      const queue = queueOf(body.QueueUrl);
      const visible = queue.messages.filter((m) => m.visibleAt <= now()).length;
      return {
        Attributes: {
          ApproximateNumberOfMessages: String(visible),
          ApproximateNumberOfMessagesNotVisible: String(queue.messages.length - visible),
        },
      };
    },
    DeleteMessage: (body) => {
      const queue = queueOf(body.QueueUrl);
      const handle = body.ReceiptHandle;
      const index = queue.messages.findIndex((m) => m.receiptHandle === handle);
      // SQS accepts a stale handle of a message still in the queue; an unknown one is refused.
      if (index < 0) {
        const id = typeof handle === 'string' ? handle.split('#')[0] : undefined;
        if (queue.messages.some((m) => m.id === id)) return {};
        throw new SqsFault('ReceiptHandleIsInvalid', 'The input receipt handle is invalid.', 'ReceiptHandleIsInvalid');
      }
      queue.messages.splice(index, 1);
      return {};
    },
  };

  const reply = (res: ServerResponse, call: SqsCall, status: number, body: unknown, headers = {}) => {
    call.status = status;
    calls.push(call);
    res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0', ...headers });
    res.end(JSON.stringify(body));
  };

  const server = createServer((req, res) => {
    let closed = false;
    inFlight++;
    res.on('close', () => {
      closed = true;
      inFlight--;
      if (!res.writableEnded) abandoned++;
    });
    void readRaw(req).then(async (raw) => {
      const target = String(req.headers['x-amz-target'] ?? '');
      const operation = target.startsWith('AmazonSQS.') ? target.slice('AmazonSQS.'.length) : target;
      let body: Record<string, unknown> = {};
      try {
        body = raw.length ? (JSON.parse(raw.toString('utf8')) as Record<string, unknown>) : {};
      } catch {
        body = {};
      }
      const call: SqsCall = { operation, body, status: 0 };
      const handler = operations[operation];
      if (!handler || req.method !== 'POST')
        return reply(res, call, 400, { __type: 'com.amazonaws.sqs#UnsupportedOperation', message: `${target}` });
      try {
        const result = await handler(body, () => closed);
        if (!closed) reply(res, call, 200, result);
      } catch (err) {
        if (!(err instanceof SqsFault)) throw err;
        reply(
          res,
          call,
          400,
          { __type: `com.amazonaws.sqs#${err.type}`, message: err.message },
          { 'x-amzn-query-error': `${err.queryCode};Sender` },
        );
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  base = `http://127.0.0.1:${port}`;

  return {
    endpoint: base,
    createQueue(name, options = {}) {
      queues.set(name, { name, options, messages: [] });
      return `${base}/${SQS_ACCOUNT}/${name}`;
    },
    queueUrl: (name) => `${base}/${SQS_ACCOUNT}/${name}`,
    bodies: (name) => (queues.get(name)?.messages ?? []).map((m) => m.body),
    advance(ms) {
      offset += ms;
    },
    calls: () => [...calls],
    inFlight: () => inFlight,
    abandoned: () => abandoned,
    async close() {
      const closedEvent = once(server, 'close');
      server.close();
      server.closeAllConnections();
      await closedEvent;
    },
  };
}
