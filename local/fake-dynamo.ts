import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  type DynamoDBDocumentClientResolvedConfig,
  GetCommand,
  PutCommand,
  QueryCommand,
  type ServiceInputTypes,
  type ServiceOutputTypes,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { type AwsStub, mockClient } from 'aws-sdk-client-mock';

type Item = Record<string, unknown>;
type Values = Record<string, unknown>;

const failed = () =>
  new ConditionalCheckFailedException({
    message: 'The conditional request failed',
    $metadata: { httpStatusCode: 400 },
  });

/**
 * An in-memory table behind a real DynamoDBDocumentClient (aws-sdk-client-mock), evaluating the
 * exact condition, update and key expressions pod-doctor uses, so workflow tests exercise locks,
 * counters and cooldowns rather than canned answers. Unknown expressions throw.
 */
export class FakeDynamo {
  readonly items = new Map<string, Item>();
  readonly client: DynamoDBDocumentClient;

  constructor() {
    this.client = DynamoDBDocumentClient.from(
      new DynamoDBClient({ region: 'eu-west-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }),
    );
    this.serve(mockClient(this.client));
  }

  /**
   * Answers the commands of a DocumentClient stub from this table; also for a stub on the class,
   * when the code under test builds its own client (the Lambda handlers do).
   */
  serve(stub: AwsStub<ServiceInputTypes, ServiceOutputTypes, DynamoDBDocumentClientResolvedConfig>): void {
    stub
      .on(PutCommand)
      .callsFake((i) => this.put(i.Item as Item, i.ConditionExpression, i.ExpressionAttributeValues ?? {}));
    stub.on(GetCommand).callsFake((i) => ({ Item: this.items.get(this.key(i.Key as Item)) }));
    stub
      .on(UpdateCommand)
      .callsFake((i) =>
        this.update(
          i.Key as Item,
          i.UpdateExpression ?? '',
          i.ConditionExpression,
          i.ExpressionAttributeValues ?? {},
          i.ReturnValues,
        ),
      );
    stub
      .on(QueryCommand)
      .callsFake((i) =>
        this.query(i.KeyConditionExpression ?? '', i.FilterExpression, i.ExpressionAttributeValues ?? {}),
      );
  }

  key(k: Item): string {
    return `${k.pk}|${k.sk}`;
  }

  private holds(cond: string | undefined, existing: Item | undefined, v: Values): boolean {
    switch (cond) {
      case undefined:
        return true;
      case 'attribute_not_exists(pk)':
        return !existing;
      case 'attribute_exists(pk)':
        return !!existing;
      case 'attribute_not_exists(pk) OR firstSeen < :windowStart':
        return !existing || (existing.firstSeen as number) < (v[':windowStart'] as number);
      case 'attribute_not_exists(pk) OR lockedUntil < :now OR executionId = :me':
        return (
          !existing || (existing.lockedUntil as number) < (v[':now'] as number) || existing.executionId === v[':me']
        );
      case 'executionId = :me':
        return existing?.executionId === v[':me'];
      case 'attribute_not_exists(usedAt)':
        return !!existing && existing.usedAt === undefined;
      case 'lastSeen < :last':
        return !!existing && (existing.lastSeen as number) < (v[':last'] as number);
      default:
        throw new Error(`FakeDynamo: unsupported condition ${cond}`);
    }
  }

  private put(item: Item, cond: string | undefined, v: Values) {
    if (!this.holds(cond, this.items.get(this.key(item)), v)) throw failed();
    this.items.set(this.key(item), { ...item });
    return {};
  }

  private update(k: Item, expr: string, cond: string | undefined, v: Values, rv?: string) {
    const existing = this.items.get(this.key(k));
    if (!this.holds(cond, existing, v)) throw failed();
    const item: Item = existing ?? { ...k };
    const set = /^SET (.+)$/.exec(expr);
    const add = /^ADD (\w+) (:\w+)$/.exec(expr);
    if (set) {
      for (const part of set[1].split(',')) {
        const [attr, val] = part.split('=').map((x) => x.trim());
        item[attr] = v[val];
      }
    } else if (add) {
      item[add[1]] = ((item[add[1]] as number) ?? 0) + (v[add[2]] as number);
    } else throw new Error(`FakeDynamo: unsupported update ${expr}`);
    this.items.set(this.key(k), item);
    return rv === 'ALL_NEW' ? { Attributes: { ...item } } : {};
  }

  private query(keyCond: string, filter: string | undefined, v: Values) {
    let rows = [...this.items.values()].filter((i) => i.pk === v[':pk']);
    if (keyCond === 'pk = :pk AND sk BETWEEN :from AND :to') {
      rows = rows.filter((i) => String(i.sk) >= String(v[':from']) && String(i.sk) <= String(v[':to']));
    } else if (keyCond !== 'pk = :pk') throw new Error(`FakeDynamo: unsupported key condition ${keyCond}`);
    if (filter === '#at >= :since') rows = rows.filter((i) => (i.at as number) >= (v[':since'] as number));
    else if (filter) throw new Error(`FakeDynamo: unsupported filter ${filter}`);
    return { Count: rows.length, Items: rows };
  }
}
