import { DEFAULT_CLASS_MODES } from '../../lambdas/core/contract/failure-classes.js';
import type { WorkflowConfig } from '../../lambdas/core/workflow/workflow-config.js';

/** A complete, valid configuration document for handler tests (one cluster, defaults elsewhere). */
export function testConfig(over: Partial<WorkflowConfig> = {}): WorkflowConfig {
  return {
    clusters: [
      {
        name: 'prod-eu',
        region: 'eu-west-1',
        logGroups: ['/aws/containerinsights/prod-eu/dataplane'],
        remediation: { roles: [], endpointSecurityGroups: [], subnets: [] },
        nodeRoleArns: [],
      },
    ],
    modes: { ...DEFAULT_CLASS_MODES },
    remedies: {},
    limits: {
      maxNodeActionsPerClusterPerHour: 5,
      maxNodeGroupShareAffected: 0.3,
      incidentWindowMinutes: 30,
      nodeCooldownMinutes: 60,
    },
    killSwitchParameterName: '/pod-doctor/kill-switch',
    documents: {
      probeNode: 'pod-doctor-probeNode',
      repairPauseImage: 'pod-doctor-repairPauseImage',
      collectLogs: 'pod-doctor-collectLogs',
      restartRuntime: 'pod-doctor-restartRuntime',
    },
    historyRetentionDays: 365,
    evidenceBucket: 'evidence-bucket',
    tableName: 'incidents',
    trustedSandboxImages: [],
    ...over,
  };
}
