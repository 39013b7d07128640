import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type IncidentCandidate, incidentId } from '../core/incidents.js';
import { CATALOGUE_VERSION } from '../core/signatures.js';
import { openIncidentKey } from './incident-table.js';

/** Step Functions takes at most 256 KB of execution input; keep well below it. */
export const MAX_WORKFLOW_INPUT_BYTES = 200 * 1024;

/** The workflow input as JSON, dropping samples then pods until it fits (entities are already capped). */
export function boundedInput<T extends { samples: readonly string[]; pods: readonly string[] }>(input: T): string {
  let v = input;
  let json = JSON.stringify(v);
  while (Buffer.byteLength(json) > MAX_WORKFLOW_INPUT_BYTES && (v.samples.length > 1 || v.pods.length > 0)) {
    v = v.samples.length > 1 ? { ...v, samples: v.samples.slice(0, -1) } : { ...v, pods: v.pods.slice(0, -1) };
    json = JSON.stringify(v);
  }
  return json;
}

/** The open incident of a key, as stored. */
export interface OpenIncident {
  readonly incidentId: string;
  readonly opened: boolean;
  readonly workflowStarted: boolean;
  /** The workflow input fixed when the incident opened (so a retried start is idempotent). */
  readonly workflowInput: string;
  readonly occurrences: number;
}

export interface IncidentStoreOptions {
  readonly tableName: string;
  /** Repeats within this many ms of the first occurrence join the open incident. */
  readonly windowMs: number;
  /** How long rows live (DynamoDB TTL). */
  readonly retentionDays: number;
}

/**
 * Opens an incident for a candidate or joins the one already open in the window, across
 * concurrent Lambda invocations: a conditional PutItem decides who opens it.
 */
export class IncidentStore {
  constructor(
    private readonly ddb: DynamoDBDocumentClient,
    private readonly options: IncidentStoreOptions,
  ) {}

  async openOrJoin(c: IncidentCandidate, now: number): Promise<OpenIncident> {
    return (await this.open(c, now)) ?? this.join(c);
  }

  /** Opens the incident unless one is open in the window (then undefined: join it). */
  private async open(c: IncidentCandidate, now: number): Promise<OpenIncident | undefined> {
    const id = incidentId(c.key, c.firstSeen);
    // What both the row and the workflow input say about the incident.
    const about = {
      incidentId: id,
      class: c.class,
      kind: c.kind,
      cluster: c.cluster,
      scope: c.scope,
      scopeValue: c.scopeValue,
      cause: c.cause,
      samples: c.samples,
      pods: c.pods,
      catalogueVersion: CATALOGUE_VERSION,
      // A fleet member's incident names where it is: the fleet view groups by it, actions go there.
      ...(c.account ? { account: c.account, region: c.region } : {}),
    };
    const workflowInput = boundedInput({
      ...about,
      signals: c.signals,
      incidentKey: c.key,
      entities: c.entities,
      ...(c.factSources ? { factSources: c.factSources } : {}),
      firstSeen: new Date(c.firstSeen).toISOString(),
    });
    const expiresAt = Math.floor(now / 1000) + this.options.retentionDays * 86_400;
    try {
      await this.ddb.send(
        new PutCommand({
          TableName: this.options.tableName,
          Item: {
            ...openIncidentKey(c.key),
            ...about,
            occurrences: c.count,
            firstSeen: c.firstSeen,
            lastSeen: c.lastSeen,
            workflowInput,
            workflowStarted: false,
            // A string set: every signal that later joins the incident is added to it.
            ...(c.signals.length ? { signals: new Set(c.signals) } : {}),
            expiresAt,
          },
          ConditionExpression: 'attribute_not_exists(pk) OR firstSeen < :windowStart',
          ExpressionAttributeValues: { ':windowStart': c.firstSeen - this.options.windowMs },
        }),
      );
      return { incidentId: id, opened: true, workflowStarted: false, workflowInput, occurrences: c.count };
    } catch (e) {
      if (!(e instanceof ConditionalCheckFailedException)) throw e;
      return undefined;
    }
  }

  /** Adds the candidate's occurrences to the open incident (and its lastSeen, never backwards). */
  private async join(c: IncidentCandidate): Promise<OpenIncident> {
    const joined = await this.ddb.send(
      new UpdateCommand({
        TableName: this.options.tableName,
        Key: openIncidentKey(c.key),
        UpdateExpression: c.signals.length ? 'ADD occurrences :n, signals :s' : 'ADD occurrences :n',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':n': c.count, ...(c.signals.length ? { ':s': new Set(c.signals) } : {}) },
        ReturnValues: 'ALL_NEW',
      }),
    );
    const a = joined.Attributes ?? {};
    if (typeof a.lastSeen === 'number' && a.lastSeen < c.lastSeen) await this.advanceLastSeen(c.key, c.lastSeen);
    return {
      incidentId: String(a.incidentId),
      opened: false,
      workflowStarted: a.workflowStarted === true,
      workflowInput: String(a.workflowInput),
      occurrences: Number(a.occurrences),
    };
  }

  /** lastSeen only moves forward; a batch from the past must not rewind it. */
  private async advanceLastSeen(key: string, lastSeen: number): Promise<void> {
    try {
      await this.ddb.send(
        new UpdateCommand({
          TableName: this.options.tableName,
          Key: openIncidentKey(key),
          UpdateExpression: 'SET lastSeen = :last',
          ConditionExpression: 'lastSeen < :last',
          ExpressionAttributeValues: { ':last': lastSeen },
        }),
      );
    } catch (err) {
      // Another invocation already moved lastSeen further: nothing to do.
      if (!(err instanceof ConditionalCheckFailedException)) throw err;
    }
  }

  async markWorkflowStarted(key: string, executionArn: string): Promise<void> {
    await this.ddb.send(
      new UpdateCommand({
        TableName: this.options.tableName,
        Key: openIncidentKey(key),
        UpdateExpression: 'SET workflowStarted = :t, executionArn = :arn',
        ExpressionAttributeValues: { ':t': true, ':arn': executionArn },
      }),
    );
  }
}
