import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { failingOnNode, healthyNode } from '../../core/node-signs.js';
import { type CommandResult, probeFindings } from '../../core/probe.js';
import { openIncidentKey } from '../incident-table.js';
import type { PodVerdict } from '../kubernetes/verify-pods.js';

export interface VerifyInput {
  readonly incidentKey: string;
  readonly class: string;
  /** When the repair command was sent (ISO, from $$.State.EnteredTime). */
  readonly actionSentAt: string;
  readonly verifyProbe: CommandResult;
  /** The positive signal: the stuck pods watched after the repair (absent or `watched: false`: none). */
  readonly pods?: { readonly watched?: boolean; readonly verdict?: PodVerdict };
}

export interface Verification {
  readonly verified: boolean;
  readonly reason: string;
  readonly nextStep: string;
  /**
   * The node is healthy again but the watched pods stay stuck (a sandbox or pull back-off kubelet
   * does not retry soon): evicting them so their controllers re-create them may finish the repair.
   */
  readonly podsStillStuck: boolean;
}

const REPLACE = 'cordon and drain the node, then terminate it so the node group replaces it';

/**
 * Verify: the probe after the repair shows the class's failing condition gone (pause image present
 * and pinned; PID/thread use under the limit), and no new matching log line from the node arrived
 * after the repair (or the stuck pods started).
 */
export async function verifyRepair(
  input: VerifyInput,
  deps: { ddb: DynamoDBDocumentClient; tableName: string },
): Promise<Verification> {
  const findings = probeFindings(input.verifyProbe);
  const bad = failingOnNode(input.class, findings);
  if (findings.length === 0 || findings.some((f) => f.id === 'node.probe')) {
    return {
      verified: false,
      reason: `verification probe did not run (${input.verifyProbe?.status ?? 'no result'})`,
      nextStep: `check the node by hand; if pods still cannot start, ${REPLACE}`,
      podsStillStuck: false,
    };
  }
  if (bad.length)
    return {
      verified: false,
      reason: `still failing after the repair: ${bad.map((f) => `${f.id} ${f.status}`).join(', ')}`,
      nextStep: REPLACE,
      podsStillStuck: false,
    };
  const podVerdict = input.pods?.verdict;
  if (podVerdict) return podVerification(podVerdict, healthyNode(input.class));
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
      podsStillStuck: false,
    };
  }
  return {
    verified: true,
    reason: `${healthyNode(input.class)}; no new failure lines from the node since the repair`,
    nextStep: 'none: pod-doctor keeps watching for a recurrence',
    podsStillStuck: false,
  };
}

/** The verdict when the stuck pods were watched: they started, or they did not within the window. */
function podVerification(v: PodVerdict, healthy: string): Verification {
  const started = v.started.map((p) => `${p.pod} after ${p.afterSeconds} s`).join(', ');
  if (v.verified) {
    return {
      verified: true,
      reason: `${healthy}; the stuck pods started: ${started}`,
      nextStep: 'none: pod-doctor keeps watching for a recurrence',
      podsStillStuck: false,
    };
  }
  const stuck = v.stillStuck.length ? `still not running after ${v.windowSeconds} s: ${v.stillStuck.join(', ')}` : '';
  const gone = v.gone.length ? `deleted or replaced meanwhile: ${v.gone.join(', ')}` : '';
  return {
    verified: false,
    reason: [stuck, gone, started ? `started: ${started}` : ''].filter(Boolean).join('; ') || 'no watched pod started',
    nextStep: v.stillStuck.length
      ? `the node is healthy: delete the stuck pods so their controllers re-create them (kubectl delete pod); if the new pods fail too, ${REPLACE}`
      : 'check that the re-created pods run',
    podsStillStuck: v.stillStuck.length > 0,
  };
}
