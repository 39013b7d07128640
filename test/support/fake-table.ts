import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { PutCommandInput, UpdateCommandInput } from '@aws-sdk/lib-dynamodb';

/**
 * An in-memory stand-in for the incident table that honours the condition expressions the
 * ingest path uses, so tests exercise the real dedupe race semantics rather than canned answers.
 */
export class FakeIncidentTable {
  readonly items = new Map<string, Record<string, unknown>>();

  private key(k: Record<string, unknown>): string {
    return `${k.pk}|${k.sk}`;
  }

  put(input: PutCommandInput): Record<string, never> {
    const item = input.Item as Record<string, unknown>;
    const existing = this.items.get(this.key(item));
    const v = input.ExpressionAttributeValues ?? {};
    if (input.ConditionExpression === 'attribute_not_exists(pk) OR firstSeen < :windowStart') {
      if (existing && !((existing.firstSeen as number) < (v[':windowStart'] as number))) throw this.conditionFailed();
    } else if (input.ConditionExpression) {
      throw new Error(`fake table: unsupported condition ${input.ConditionExpression}`);
    }
    this.items.set(this.key(item), { ...item });
    return {};
  }

  update(input: UpdateCommandInput): { Attributes?: Record<string, unknown> } {
    const k = this.key(input.Key as Record<string, unknown>);
    const existing = this.items.get(k);
    const v = input.ExpressionAttributeValues ?? {};
    switch (input.ConditionExpression) {
      case 'attribute_exists(pk)':
        if (!existing) throw this.conditionFailed();
        break;
      case 'lastSeen < :last':
        if (!existing || !((existing.lastSeen as number) < (v[':last'] as number))) throw this.conditionFailed();
        break;
      case undefined:
        break;
      default:
        throw new Error(`fake table: unsupported condition ${input.ConditionExpression}`);
    }
    const item = existing ?? { ...(input.Key as Record<string, unknown>) };
    switch (input.UpdateExpression) {
      case 'ADD occurrences :n':
        item.occurrences = ((item.occurrences as number) ?? 0) + (v[':n'] as number);
        break;
      case 'SET lastSeen = :last':
        item.lastSeen = v[':last'];
        break;
      case 'SET workflowStarted = :t, executionArn = :arn':
        item.workflowStarted = v[':t'];
        item.executionArn = v[':arn'];
        break;
      default:
        throw new Error(`fake table: unsupported update ${input.UpdateExpression}`);
    }
    this.items.set(k, item);
    return input.ReturnValues === 'ALL_NEW' ? { Attributes: { ...item } } : {};
  }

  private conditionFailed(): ConditionalCheckFailedException {
    return new ConditionalCheckFailedException({
      message: 'The conditional request failed',
      $metadata: { httpStatusCode: 400 },
    });
  }
}
