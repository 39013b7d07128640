import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { openIncidentKey } from '../../core/contract/incident-table.js';
import { CATALOGUE_VERSION } from '../../core/detect/signatures.js';
import { type IncidentCandidate, incidentId } from '../../core/incident/incidents.js';
import type { Rank } from '../../core/incident/provenance.js';
import type { IncidentRuns } from '../../core/incident/reevaluation.js';

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

/** The row attribute counting each rank's re-evaluations. */
const REEVALUATION_ATTRIBUTE: Readonly<Record<Rank, string>> = {
  aws: 'reevaluationsAws',
  node: 'reevaluationsNode',
  tenant: 'reevaluationsTenant',
};

/** The re-evaluations per rank a row holds (none: a row from before ranks, see reevaluationsOf). */
function reevaluationCounts(a: Record<string, unknown>): Pick<IncidentRuns, 'reevaluations'> {
  const out: Partial<Record<Rank, number>> = {};
  for (const [rank, attribute] of Object.entries(REEVALUATION_ATTRIBUTE) as [Rank, string][]) {
    const n = a[attribute];
    if (typeof n === 'number') out[rank] = n;
  }
  if (Object.keys(out).length === 0) return {};
  // A row whose node re-evaluations predate the counters: they are the runs the others do not explain.
  const explained = (out.aws ?? 0) + (out.tenant ?? 0) + (out.node ?? 0);
  const runs = typeof a.runs === 'number' ? a.runs : 1;
  if (out.node === undefined && runs - 1 > explained) out.node = runs - 1 - explained;
  return { reevaluations: out };
}

/** The open incident of a key, as stored. */
export interface OpenIncident extends IncidentRuns {
  readonly incidentId: string;
  /** An invocation has taken the execution budget for the first evaluation (it starts it, or a retry does). */
  readonly startBudgeted: boolean;
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

/** The open row changed between the conditional open and the join (a race): the batch is retried. */
export class IncidentRaceError extends Error {
  override readonly name = 'IncidentRaceError';
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

  /** Opens the incident, or joins the one another invocation opened meanwhile. */
  async open(c: IncidentCandidate, now: number): Promise<OpenIncident> {
    return (await this.tryOpen(c, now)) ?? this.mustJoin(c);
  }

  private async mustJoin(c: IncidentCandidate): Promise<OpenIncident> {
    const joined = await this.join(c);
    if (!joined) throw new IncidentRaceError(`incident ${c.key} is neither open in its window nor openable`);
    return joined;
  }

  /** Opens the incident unless one is open in the window (then undefined: join it). */
  private async tryOpen(c: IncidentCandidate, now: number): Promise<OpenIncident | undefined> {
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
      return {
        incidentId: id,
        opened: true,
        workflowStarted: false,
        workflowInput,
        occurrences: c.count,
        startBudgeted: false,
        runs: 0,
        closedRuns: 0,
        startedAt: 0,
      };
    } catch (e) {
      if (!(e instanceof ConditionalCheckFailedException)) throw e;
      return undefined;
    }
  }

  /**
   * Adds the candidate's occurrences to the incident open in its window (and its lastSeen, never
   * backwards); undefined when none is open in the window.
   */
  async join(c: IncidentCandidate): Promise<OpenIncident | undefined> {
    let a: Record<string, unknown>;
    try {
      const joined = await this.ddb.send(
        new UpdateCommand({
          TableName: this.options.tableName,
          Key: openIncidentKey(c.key),
          UpdateExpression: c.signals.length ? 'ADD occurrences :n, signals :s' : 'ADD occurrences :n',
          ConditionExpression: 'attribute_exists(pk) AND firstSeen >= :windowStart',
          ExpressionAttributeValues: {
            ':n': c.count,
            ':windowStart': c.firstSeen - this.options.windowMs,
            ...(c.signals.length ? { ':s': new Set(c.signals) } : {}),
          },
          ReturnValues: 'ALL_NEW',
        }),
      );
      a = joined?.Attributes ?? {};
    } catch (e) {
      if (e instanceof ConditionalCheckFailedException) return undefined;
      throw e;
    }
    if (typeof a.lastSeen === 'number' && a.lastSeen < c.lastSeen) await this.advanceLastSeen(c.key, c.lastSeen);
    const num = (v: unknown) => (typeof v === 'number' ? v : 0);
    return {
      incidentId: String(a.incidentId),
      opened: false,
      workflowStarted: a.workflowStarted === true,
      workflowInput: String(a.workflowInput),
      occurrences: num(a.occurrences),
      // Rows from before re-evaluation existed: one run, started when the workflow was.
      runs: typeof a.runs === 'number' ? a.runs : a.workflowStarted === true ? 1 : 0,
      startBudgeted: a.startBudgeted === true,
      closedRuns: a.closedExecutions instanceof Set ? a.closedExecutions.size : 0,
      startedAt: num(a.startedAt),
      ...(typeof a.lastResult === 'string' ? { lastResult: a.lastResult as IncidentRuns['lastResult'] } : {}),
      ...reevaluationCounts(a),
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

  /** Records the first execution of an incident: started, its ARN, one run, when. */
  async markWorkflowStarted(key: string, executionArn: string, now = 0): Promise<void> {
    await this.ddb.send(
      new UpdateCommand({
        TableName: this.options.tableName,
        Key: openIncidentKey(key),
        UpdateExpression:
          'SET workflowStarted = :t, executionArn = :arn, runs = if_not_exists(runs, :one), startedAt = :now',
        ExpressionAttributeValues: { ':t': true, ':arn': executionArn, ':one': 1, ':now': now },
      }),
    );
  }

  /** Claims the budget of the incident's first evaluation: true for the one invocation that pays it. */
  async claimFirstStart(key: string): Promise<boolean> {
    try {
      await this.ddb.send(
        new UpdateCommand({
          TableName: this.options.tableName,
          Key: openIncidentKey(key),
          UpdateExpression: 'SET startBudgeted = :t',
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(startBudgeted)',
          ExpressionAttributeValues: { ':t': true },
        }),
      );
      return true;
    } catch (e) {
      if (e instanceof ConditionalCheckFailedException) return false;
      throw e;
    }
  }

  /**
   * Claims the next evaluation of an open incident: one more run, started now, unless another
   * invocation claimed it first (the run count moved). True for the one that claimed it.
   */
  async claimReevaluation(key: string, seenRuns: number, now: number, rank: Rank = 'node'): Promise<boolean> {
    try {
      await this.ddb.send(
        new UpdateCommand({
          TableName: this.options.tableName,
          Key: openIncidentKey(key),
          // Each rank's re-evaluations are counted apart (reevaluationDue reads them).
          UpdateExpression: `SET runs = :next, startedAt = :now ADD ${REEVALUATION_ATTRIBUTE[rank]} :one`,
          ConditionExpression: seenRuns === 1 ? 'attribute_not_exists(runs) OR runs = :seen' : 'runs = :seen',
          ExpressionAttributeValues: { ':next': seenRuns + 1, ':now': now, ':seen': seenRuns, ':one': 1 },
        }),
      );
      return true;
    } catch (e) {
      if (e instanceof ConditionalCheckFailedException) return false;
      throw e;
    }
  }

  /** Records the ARN of a re-evaluation's execution (what the summary of that run links). */
  async markReevaluationStarted(key: string, executionArn: string): Promise<void> {
    await this.ddb.send(
      new UpdateCommand({
        TableName: this.options.tableName,
        Key: openIncidentKey(key),
        UpdateExpression: 'SET executionArn = :arn',
        ExpressionAttributeValues: { ':arn': executionArn },
      }),
    );
  }
}
