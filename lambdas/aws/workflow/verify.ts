import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { type CommandResult, probeFindings } from '../../core/probe.js';
import { openIncidentKey } from '../incident-table.js';

export interface VerifyInput {
  readonly incidentKey: string;
  readonly class: string;
  /** When the repair command was sent (ISO, from $$.State.EnteredTime). */
  readonly actionSentAt: string;
  readonly verifyProbe: CommandResult;
}

export interface Verification {
  readonly verified: boolean;
  readonly reason: string;
  readonly nextStep: string;
}

const REPLACE = 'cordon and drain the node, then terminate it so the node group replaces it';

/**
 * Verify: the probe after the repair shows the failing condition gone (pause image present and
 * pinned), and no new matching log line from the node arrived after the repair.
 */
export async function verifyRepair(
  input: VerifyInput,
  deps: { ddb: DynamoDBDocumentClient; tableName: string },
): Promise<Verification> {
  const findings = probeFindings(input.verifyProbe);
  const bad = findings.filter((f) => f.id.startsWith('node.sandbox-image') && f.status !== 'pass');
  if (findings.length === 0 || findings.some((f) => f.id === 'node.probe')) {
    return {
      verified: false,
      reason: `verification probe did not run (${input.verifyProbe?.status ?? 'no result'})`,
      nextStep: `check the node by hand; if pods still cannot start, ${REPLACE}`,
    };
  }
  if (bad.length)
    return {
      verified: false,
      reason: `still failing after the repair: ${bad.map((f) => `${f.id} ${f.status}`).join(', ')}`,
      nextStep: REPLACE,
    };
  const row = await deps.ddb.send(
    new GetCommand({ TableName: deps.tableName, Key: openIncidentKey(input.incidentKey) }),
  );
  const lastSeen = typeof row.Item?.lastSeen === 'number' ? row.Item.lastSeen : 0;
  const sent = Date.parse(input.actionSentAt);
  // Lines already in flight when the command was sent may land shortly after; a minute of grace.
  if (lastSeen > sent + 60_000) {
    return {
      verified: false,
      reason: `new ${input.class} log lines from the node at ${new Date(lastSeen).toISOString()}, after the repair`,
      nextStep: REPLACE,
    };
  }
  return {
    verified: true,
    reason: 'pause image present and pinned; no new failure lines from the node since the repair',
    nextStep: 'none: pod-doctor keeps watching for a recurrence',
  };
}
