import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DeleteTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceNotFoundException,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import dynalite from 'dynalite';
import type { CfnResource } from './template.js';

type Item = Record<string, unknown>;

/** The marshalling the workflow functions use (lambdas/aws/runtime/workflow-runtime.ts). */
export const WORKFLOW_MARSHALL = { removeUndefinedValues: true, convertClassInstanceToMap: true } as const;

const CREDENTIALS = { accessKeyId: 'AKIDLOCAL', secretAccessKey: 'local' };

/** The key schema, attributes and indexes of a synthesized DynamoDB table resource. */
export function tableSchema(resource: CfnResource, name: string): CreateTableCommandInput {
  const p = resource.Properties ?? {};
  const strip = (indexes: unknown) =>
    (indexes as Record<string, unknown>[] | undefined)?.map((i) => ({
      IndexName: i.IndexName as string,
      KeySchema: i.KeySchema as never,
      Projection: i.Projection as never,
    }));
  return {
    TableName: name,
    AttributeDefinitions: p.AttributeDefinitions as never,
    KeySchema: p.KeySchema as never,
    GlobalSecondaryIndexes: strip(p.GlobalSecondaryIndexes),
    LocalSecondaryIndexes: strip(p.LocalSecondaryIndexes),
    BillingMode: 'PAY_PER_REQUEST',
  };
}

type KeyNames = { readonly hash: string; readonly range?: string };
type AttributeValue = Record<string, unknown>;

/** The items and keys a request names, per table (the shapes of the DynamoDB JSON protocol). */
function keyedItems(operation: string, body: Record<string, unknown>): [string, AttributeValue][] {
  const table = String(body.TableName ?? '');
  const each = (t: string, xs: unknown) =>
    ((xs as AttributeValue[] | undefined) ?? []).map((x) => [t, x] as [string, AttributeValue]);
  switch (operation) {
    case 'PutItem':
      return [[table, body.Item as AttributeValue]];
    case 'GetItem':
    case 'DeleteItem':
    case 'UpdateItem':
      return [[table, body.Key as AttributeValue]];
    case 'BatchWriteItem':
      return Object.entries((body.RequestItems ?? {}) as Record<string, AttributeValue[]>).flatMap(([t, rs]) =>
        each(
          t,
          rs.map((r) => (r.PutRequest as AttributeValue)?.Item ?? (r.DeleteRequest as AttributeValue)?.Key),
        ),
      );
    case 'BatchGetItem':
      return Object.entries((body.RequestItems ?? {}) as Record<string, AttributeValue>).flatMap(([t, r]) =>
        each(t, r.Keys),
      );
    case 'TransactWriteItems':
      return ((body.TransactItems ?? []) as Record<string, AttributeValue>[]).flatMap((ti) =>
        Object.values(ti).map(
          (op) => [String(op.TableName), (op.Item ?? op.Key) as AttributeValue] as [string, AttributeValue],
        ),
      );
    default:
      return [];
  }
}

/**
 * DynamoDB measures a string key in UTF-8 bytes (partition ≤ 2,048, sort ≤ 1,024); dynalite counts
 * UTF-16 code units, so a key of 1,500 "é" (3,000 bytes) would pass here and fail in AWS. The
 * message is DynamoDB's own.
 */
export function keySizeViolation(
  operation: string,
  body: Record<string, unknown>,
  schemas: ReadonlyMap<string, KeyNames>,
): string | undefined {
  for (const [table, item] of keyedItems(operation, body)) {
    const keys = schemas.get(table);
    if (!keys || !item) continue;
    const size = (name: string | undefined) => {
      const v = name ? (item[name] as { S?: string } | undefined) : undefined;
      return typeof v?.S === 'string' ? Buffer.byteLength(v.S, 'utf8') : 0;
    };
    if (size(keys.hash) > 2048)
      return 'One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of2048 bytes';
    if (size(keys.range) > 1024)
      return 'One or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit of 1024 bytes';
  }
  return undefined;
}

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/** Puts the UTF-8 key-size check in front of dynalite's request handler. */
function enforceUtf8KeySizes(server: ReturnType<typeof dynalite>, schemas: ReadonlyMap<string, KeyNames>): void {
  const [inner] = server.listeners('request') as Listener[];
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const operation = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
      let why: string | undefined;
      try {
        why = keySizeViolation(operation, JSON.parse(raw.toString() || '{}'), schemas);
      } catch {
        why = undefined; // dynalite answers malformed bodies itself
      }
      if (why) {
        const body = JSON.stringify({ __type: 'com.amazon.coral.validate#ValidationException', message: why });
        res.writeHead(400, {
          'Content-Type': 'application/x-amz-json-1.0',
          'x-amz-crc32': String(crc32(body)),
          'Content-Length': Buffer.byteLength(body),
        });
        res.end(body);
        return;
      }
      inner(
        Object.assign(Readable.from([raw]), { headers: req.headers, method: req.method, url: req.url }) as never,
        res,
      );
    });
  });
}

/**
 * dynalite (an implementation of the DynamoDB API) on loopback: real conditional writes, key and
 * item size limits, queries and error shapes. One server per process, tables created from the
 * synthesized template's schema.
 */
export class LocalDynamo {
  private static shared: Promise<LocalDynamo> | undefined;

  /** Key attribute names of the tables created here, for the UTF-8 key-size check. */
  private readonly schemas = new Map<string, KeyNames>();

  private constructor(
    private readonly server: ReturnType<typeof dynalite>,
    readonly endpoint: string,
  ) {
    enforceUtf8KeySizes(server, this.schemas);
  }

  /** The process-wide server (started on first use, never keeps the process alive). */
  static get(): Promise<LocalDynamo> {
    LocalDynamo.shared ??= new Promise((resolve, reject) => {
      const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
      server.once('error', reject);
      // Clients keep connections alive between workflow steps; a slow step (a watch, a busy CI
      // machine) must not find its socket closed by the server's 5 s idle default (ECONNRESET).
      (server as unknown as { keepAliveTimeout: number }).keepAliveTimeout = 10 * 60_000;
      // ...and an idle kept-alive connection must not keep the process (a demo, a CLI) alive.
      server.on('connection', (socket: { unref(): void }) => socket.unref());
      server.listen(0, '127.0.0.1', () => {
        server.unref();
        const { port } = server.address() as AddressInfo;
        resolve(new LocalDynamo(server, `http://127.0.0.1:${port}`));
      });
    });
    return LocalDynamo.shared;
  }

  /** A low-level client of this server. */
  client(): DynamoDBClient {
    return new DynamoDBClient({
      region: 'eu-west-1',
      endpoint: this.endpoint,
      credentials: CREDENTIALS,
      maxAttempts: 1,
    });
  }

  /** An empty table named `schema.TableName` (an existing one of that name is dropped first). */
  async freshTable(schema: CreateTableCommandInput): Promise<LocalTable> {
    const ddb = this.client();
    const name = String(schema.TableName);
    try {
      await ddb.send(new DeleteTableCommand({ TableName: name }));
      await this.waitFor(ddb, name, 'gone');
    } catch (e) {
      if (!(e instanceof ResourceNotFoundException)) throw e;
    }
    await ddb.send(new CreateTableCommand(schema));
    const key = (type: string) => schema.KeySchema?.find((k) => k.KeyType === type)?.AttributeName;
    this.schemas.set(name, { hash: String(key('HASH')), range: key('RANGE') });
    await this.waitFor(ddb, name, 'ACTIVE');
    return new LocalTable(
      name,
      this.endpoint,
      DynamoDBDocumentClient.from(ddb, { marshallOptions: WORKFLOW_MARSHALL }),
    );
  }

  private async waitFor(ddb: DynamoDBClient, name: string, want: 'ACTIVE' | 'gone'): Promise<void> {
    for (let i = 0; i < 200; i++) {
      try {
        const t = await ddb.send(new DescribeTableCommand({ TableName: name }));
        if (want === 'ACTIVE' && t.Table?.TableStatus === 'ACTIVE') return;
      } catch (e) {
        if (want === 'gone' && e instanceof ResourceNotFoundException) return;
        throw e;
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    throw new Error(`table ${name} never became ${want}`);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** One dynalite table and a DocumentClient (workflow marshalling) on it. */
export class LocalTable {
  constructor(
    readonly name: string,
    /** The dynalite endpoint, for clients of its own (the workflow runtime guards its clients). */
    readonly endpoint: string,
    readonly client: DynamoDBDocumentClient,
  ) {}

  async put(item: Item): Promise<void> {
    await this.client.send(new PutCommand({ TableName: this.name, Item: item }));
  }

  async get(key: Item): Promise<Item | undefined> {
    return (await this.client.send(new GetCommand({ TableName: this.name, Key: key }))).Item;
  }

  /** Every item (paged through). */
  async scan(): Promise<Item[]> {
    const out: Item[] = [];
    let start: Item | undefined;
    do {
      const page = await this.client.send(new ScanCommand({ TableName: this.name, ExclusiveStartKey: start }));
      out.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start);
    return out;
  }
}
