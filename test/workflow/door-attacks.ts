import type { FailureClass } from '../../lambdas/core/contract/failure-classes.js';
import {
  ACCOUNT,
  type AccountSnapshot,
  ENDPOINT_SG,
  healthyAccount,
  NODE_DNS,
  NODE_ID,
  NODE_ROLE,
  SUBNET,
} from '../../local/account-snapshot.js';
import type { LocalTable } from '../../local/dynamo.js';
import type { RecordedCluster } from '../../local/kube-api-server.js';
import { clusterOnNode, LocalCluster } from '../../local/local-cluster.js';
import { definitionOf, type RunResult, runWorkflow } from '../../local/local-workflow.js';
import { simulatedNode } from '../../local/node-adapters.js';
import { LOCAL_CONFIG, type ResolvedTemplate, synthesizedTemplate } from '../../local/template.js';
import { incident, summaryOf } from './support.js';

/**
 * Attacks on the action door through the synthesized state machine and the real handlers (the
 * local runtime: IAM from the template, dynalite, the local API server with the shipped RBAC and
 * admission policy). Each attack is a function the door's tests run as they are, and the bypass
 * test runs again with the gate taken out, to show the same attack then succeeds.
 */

export const CNI_ROLE = 'AmazonEKSVPCCNIRole';
export const CNI_POLICY = 'arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy';
export const AWS_NODE_RESTART = 'DELETE /api/v1/namespaces/kube-system/pods/aws-node-7xk2p';

let template: ResolvedTemplate | undefined;
export function remediationTemplate(): ResolvedTemplate {
  template ??= synthesizedTemplate({
    clusters: [
      {
        ...LOCAL_CONFIG.clusters[0],
        remediation: { roles: [NODE_ROLE, CNI_ROLE], endpointSecurityGroups: [ENDPOINT_SG], subnets: [SUBNET] },
      },
    ],
  });
  return template;
}

/** The managed vpc-cni add-on gives aws-node a role (IRSA) without AmazonEKS_CNI_Policy. */
export function cniAccount(): AccountSnapshot {
  const a = healthyAccount();
  a.addons[0].serviceAccountRoleArn = `arn:aws:iam::${ACCOUNT}:role/${CNI_ROLE}`;
  a.roles[CNI_ROLE] = { attached: [], inline: {} };
  return a;
}

/** The recorded cluster with aws-node Ready on the node (ipamd answers): only a tenant's pods are stuck there. */
export function awsNodeReady(): RecordedCluster {
  const c = clusterOnNode(NODE_DNS);
  for (const p of c.awsNodePods) {
    const statuses = (p.status as { containerStatuses: { ready: boolean }[] }).containerStatuses;
    for (const s of statuses) s.ready = true;
  }
  return c;
}

/** When the default run happens (local-workflow's default clock). */
export const T0 = Date.parse('2026-11-29T10:05:00Z');

export interface AttackRun {
  readonly r: RunResult;
  readonly cluster: LocalCluster;
  readonly account: AccountSnapshot;
  readonly outcome: string;
}

export interface AttackOptions {
  readonly cls: FailureClass;
  readonly mode: 'approve' | 'auto';
  readonly tier: 'approve' | 'auto';
  readonly approval?: 'approve';
  readonly killSwitchDuringApproval?: 'on';
  readonly cluster?: RecordedCluster;
  readonly account?: AccountSnapshot;
  readonly table?: LocalTable;
  readonly now?: number;
  readonly limits?: { maxNodeActionsPerClusterPerHour?: number };
}

/** One incident through the workflow against a fresh local cluster; the caller stops the cluster. */
export async function attack(o: AttackOptions): Promise<AttackRun> {
  const t = remediationTemplate();
  const cluster = await LocalCluster.start(o.cluster ?? clusterOnNode(NODE_DNS), { watchSeconds: 1 });
  const account = o.account ?? healthyAccount();
  // A later run is a later incident (its own id, so its own execution).
  const at = o.now ?? T0;
  const r = await runWorkflow(
    incident({
      class: o.cls,
      incidentId: `0f3a9c2e5b7d1a4c-${Math.floor(at / 1000) - 300}`,
      incidentKey: `prod-eu|node:${NODE_ID}|${o.cls}`,
      cause: `${o.cls} in the field`,
      firstSeen: new Date(at - 300_000).toISOString(),
    }),
    {
      account,
      template: t,
      definition: definitionOf(t),
      node: simulatedNode([]),
      modes: { [o.cls]: o.mode },
      remedies: { [o.cls]: o.tier },
      approval: o.approval,
      killSwitchDuringApproval: o.killSwitchDuringApproval,
      kubernetes: cluster.kubernetes,
      table: o.table,
      now: o.now,
      limits: o.limits,
    },
  );
  return { r, cluster, account, outcome: summaryOf(r).outcome };
}

/** AmazonEKS_CNI_Policy is attached to aws-node's role. */
export const cniAttached = (a: AccountSnapshot) => a.roles[CNI_ROLE].attached.includes(CNI_POLICY);
