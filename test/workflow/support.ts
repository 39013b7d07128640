import { NODE_ID } from '../../lib/demo/account-snapshot.js';
import type { LocalNodeBehaviour, NodeCommandAnswer } from '../../lib/demo/local-workflow.js';

export const AL2023_PAUSE = 'localhost/kubernetes/pause:latest';

export function incident(over: Record<string, unknown> = {}) {
  const cls = (over.class as string) ?? 'sandbox-image';
  return {
    incidentId: `0f3a9c2e5b7d1a4c-${Math.floor(Date.parse('2026-11-29T10:00:00Z') / 1000)}`,
    incidentKey: `prod-eu|node:${NODE_ID}|${cls}`,
    class: cls,
    kind: 'failure',
    cluster: 'prod-eu',
    scope: 'node',
    scopeValue: NODE_ID,
    cause: 'the sandbox (pause) image was deleted from the node and cannot be pulled from anywhere',
    entities: { instanceId: NODE_ID, node: 'ip-10-0-12-34.eu-west-1.compute.internal', sandboxImage: AL2023_PAUSE },
    firstSeen: '2026-11-29T10:00:00.000Z',
    samples: [
      'E1129 10:00:01.000001    3412 log.go:32] "RunPodSandbox from runtime service failed" err="rpc error: code = NotFound desc = failed to get sandbox image "localhost/kubernetes/pause": failed to pull image "localhost/kubernetes/pause": not found" pod="default/web-7d9c8-x2k4q"',
    ],
    pods: ['default/web-7d9c8-x2k4q'],
    ...over,
  };
}

/** probe-node.sh's last line, as the script prints it. */
export function probeOutput(healthy: boolean): string {
  const st = healthy ? 'pass' : 'fail';
  return [
    '2026-11-29T10:05:01Z pod-doctor: probing',
    JSON.stringify({
      node: {
        os: 'amzn',
        osVersion: '2023',
        containerd: '1.7.27',
        kubelet: 'v1.33.5-eks-113cf36',
        sandboxImage: AL2023_PAUSE,
        soci: false,
      },
      findings: [
        { id: 'node.os', status: 'pass', summary: 'OS amzn 2023', evidence: 'ID="amzn" VERSION_ID="2023"' },
        { id: 'node.sandbox-image.configured', status: 'pass', summary: `sandbox image ${AL2023_PAUSE}`, evidence: '' },
        {
          id: 'node.sandbox-image.present',
          status: st,
          summary: healthy ? 'present' : `${AL2023_PAUSE} is missing from the k8s.io image store`,
          evidence: '',
        },
        { id: 'node.sandbox-image.pinned', status: st, summary: healthy ? 'pinned' : 'not pinned', evidence: '' },
        { id: 'node.disk', status: 'pass', summary: 'image filesystem 41% full', evidence: '' },
        { id: 'node.pids', status: 'pass', summary: 'PID/thread use at 3% of the limit', evidence: '' },
      ],
    }),
  ].join('\n');
}

export const REPAIRED = JSON.stringify({
  status: 'repaired',
  image: AL2023_PAUSE,
  method: 'reimport',
  pinned: true,
  dryRun: false,
  message: `${AL2023_PAUSE} restored by reimport and pinned`,
});

/** A node that answers like a real AL2023 node whose pause image was deleted. */
export function brokenAl2023Node(
  over: { managed?: boolean; repair?: Partial<NodeCommandAnswer>; healsAfterRepair?: boolean } = {},
): LocalNodeBehaviour & { repaired: boolean } {
  const node = {
    managed: over.managed ?? true,
    repaired: false,
    run(document: string): NodeCommandAnswer {
      if (document.endsWith('probeNode'))
        return { status: 'Success', stdout: probeOutput(node.repaired && over.healsAfterRepair !== false) };
      if (document.endsWith('repairPauseImage')) {
        const answer = {
          status: 'Success',
          stdout: `2026-11-29T10:05:02Z pod-doctor: re-importing\n${REPAIRED}`,
          ...over.repair,
        };
        if (answer.status === 'Success') node.repaired = true;
        return answer;
      }
      if (document.endsWith('collectLogs')) {
        return {
          status: 'Success',
          stdout: JSON.stringify({
            status: 'uploaded',
            key: 'incidents/x/pod-doctor_ip-10-0-12-34_20261129T100502Z.tar.gz',
            sha256: 'ab'.repeat(32),
            bytes: 482211,
            collector: 'eks-log-collector',
          }),
        };
      }
      return { status: 'Failed', stdout: '', stderr: `unexpected document ${document}` };
    },
  };
  return node;
}
