import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../lib/constructs/paths.js';
import { buildDocumentContent, NODE_COMMANDS, type NodeCommandName } from '../ssm/documents.js';
import type { LocalNode } from './local-node.js';
import { DOCUMENTS, type LocalNodeBehaviour, type NodeCommandAnswer } from './local-workflow.js';

const BY_NAME = Object.fromEntries(Object.entries(DOCUMENTS).map(([k, v]) => [v, k as NodeCommandName]));

/** What SSM itself rejects before the agent runs anything: a value outside the parameter's allowedPattern. */
export function ssmRejects(name: NodeCommandName, parameters: Record<string, string[]>): string | undefined {
  for (const p of NODE_COMMANDS[name].parameters) {
    const v = parameters[p.name]?.[0] ?? p.default;
    if (!new RegExp(p.allowedPattern).test(v)) return `InvalidParameters: ${p.name} does not match ${p.allowedPattern}`;
  }
  return undefined;
}

/** What SSM does before a node sees a command: the document must be ours and the parameters valid. */
function admit(
  document: string,
  parameters: Record<string, string[]>,
): { name?: NodeCommandName; rejected?: NodeCommandAnswer } {
  const name = BY_NAME[document];
  const why = name ? ssmRejects(name, parameters) : `unknown document ${document}`;
  return why ? { rejected: { status: 'Failed', stdout: '', stderr: why } } : { name };
}

export interface LocalNodeOptions {
  /** Environment of the node scripts (containerd config, pause tarball, token command ...). */
  readonly env: Record<string, string>;
  /** Image references SSM parameters name that this local registry stands in for. */
  readonly imageAliases?: Readonly<Record<string, string>>;
}

/**
 * A node SSM can reach, backed by a real local containerd: each SendCommand runs the document's
 * embedded runCommand with `sh`, parameters as SSM_* variables, exactly as the agent would.
 */
export function realNode(node: LocalNode, o: LocalNodeOptions): LocalNodeBehaviour {
  const lib = readFileSync(join(PROJECT_ROOT, 'ssm', 'lib.sh'), 'utf8');
  return {
    managed: true,
    run(document, parameters): NodeCommandAnswer {
      const { name, rejected } = admit(document, parameters);
      if (rejected || !name) return rejected ?? { status: 'Failed', stdout: '' };
      const spec = NODE_COMMANDS[name];
      const content = buildDocumentContent(spec, lib, readFileSync(join(PROJECT_ROOT, 'ssm', spec.script), 'utf8')) as {
        mainSteps: { inputs: { runCommand: string[] } }[];
      };
      const ssmEnv: Record<string, string> = {};
      for (const p of spec.parameters) {
        const v = parameters[p.name]?.[0] ?? p.default;
        ssmEnv[`SSM_${p.name}`] = o.imageAliases?.[v] ?? v;
      }
      const r = spawnSync('sh', ['-c', content.mainSteps[0].inputs.runCommand.join('\n')], {
        encoding: 'utf8',
        env: {
          ...process.env,
          CONTAINERD_ADDRESS: node.socket,
          LOCK_FILE: join(node.dir, 'lock'),
          ...o.env,
          ...ssmEnv,
        },
        timeout: 120_000,
      });
      // What the node reports names the image it stands in for (the probe's configured sandbox image).
      let stdout = r.stdout;
      for (const [real, local] of Object.entries(o.imageAliases ?? {})) stdout = stdout.split(local).join(real);
      return { status: r.status === 0 ? 'Success' : 'Failed', stdout, stderr: r.stderr };
    },
  };
}

const HEALTHY_PROBE = [
  { id: 'node.os', status: 'pass', summary: 'OS amzn 2023' },
  {
    id: 'node.sandbox-image.present',
    status: 'pass',
    summary: 'localhost/kubernetes/pause:latest is in the k8s.io image store',
  },
  { id: 'node.sandbox-image.pinned', status: 'pass', summary: 'pinned' },
];

/** The sandbox image an AL2023 node bakes (and imports from /etc/eks/pause.tar). */
const AL2023_SANDBOX = 'localhost/kubernetes/pause:latest';

/**
 * A probe-node answer for a node the demo does not run: a healthy AL2023 node (or, with
 * `sandboxImage`, a node configured with that image: an AL2 node pulls the ECR pause image), with
 * `findings` overriding by id.
 */
export function simulatedProbe(
  findings: readonly { id: string; status: string; summary: string }[],
  sandboxImage: string = AL2023_SANDBOX,
): string {
  const byId = new Map(
    HEALTHY_PROBE.map((f) => [f.id, { ...f, summary: f.summary.replace(AL2023_SANDBOX, sandboxImage) }]),
  );
  for (const f of findings) byId.set(f.id, f);
  return JSON.stringify({
    node: {
      os: 'amzn',
      osVersion: sandboxImage === AL2023_SANDBOX ? '2023' : '2',
      containerd: '1.7.27',
      kubelet: 'v1.33.5-eks-113cf36',
      sandboxImage,
      soci: false,
    },
    findings: [...byId.values()].map((f) => ({ ...f, evidence: 'simulated node' })),
  });
}

/** collect-logs.sh's answer: the bundle uploaded under the given prefix. */
function collectAnswer(parameters: Record<string, string[]>): NodeCommandAnswer {
  return {
    status: 'Success',
    stdout: JSON.stringify({
      status: 'uploaded',
      key: `${parameters.Prefix?.[0]}/eks_i-0a1b2c3d4e5f60718_2026-11-29_1005-UTC_0.7.8.tar.gz`,
      sha256: 'c0ffee'.repeat(11).slice(0, 64),
      bytes: 5_231_877,
      collector: 'eks-log-collector',
      message: 'simulated node',
    }),
  };
}

/** What a runtime restart releases: leaked threads and zombies (the probe's PID findings pass after it). */
const AFTER_RESTART = [
  { id: 'node.pids', status: 'pass', summary: 'PID/thread use at 21% of the limit' },
  { id: 'node.zombies', status: 'pass', summary: 'no zombie processes' },
];

/**
 * A node the demo does not run: canned answers shaped like the scripts' output. A runtime restart
 * (restart-runtime.sh's answer) releases leaked threads: the probe's PID findings pass after it
 * (unless `healsAfterRestart: false`: a leak the restart does not release).
 */
export function simulatedNode(
  probeFindings: readonly { id: string; status: string; summary: string }[],
  o: { readonly healsAfterRestart?: boolean } = {},
): LocalNodeBehaviour & { readonly healthy: () => boolean } {
  let restarted = false;
  const healed = () => restarted && o.healsAfterRestart !== false;
  return {
    managed: true,
    // What the probe would say now: no failing finding (a restart releases the PID findings).
    healthy: () =>
      !probeFindings.some((f) => f.status === 'fail' && !(healed() && AFTER_RESTART.some((a) => a.id === f.id))),
    run(document, parameters): NodeCommandAnswer {
      const { name, rejected } = admit(document, parameters);
      if (rejected) return rejected;
      if (name === 'probeNode')
        return {
          status: 'Success',
          stdout: simulatedProbe(healed() ? [...probeFindings, ...AFTER_RESTART] : probeFindings),
        };
      if (name === 'collectLogs') return collectAnswer(parameters);
      if (name === 'restartRuntime') {
        restarted = true;
        const target = parameters.Target?.[0] ?? 'kubelet';
        return {
          status: 'Success',
          stdout: JSON.stringify({
            status: 'restarted',
            target,
            healthy: true,
            dryRun: false,
            message: 'simulated node',
          }),
        };
      }
      return { status: 'Failed', stdout: '', stderr: `simulated node does not run ${document}` };
    },
  };
}

export interface SimulatedPauseNodeOptions {
  /** false: SSM cannot reach the node (SendCommand answers InvalidInstanceId). @default true */
  readonly managed?: boolean;
  /** Overrides of the repair command's answer (status, polls before done ...). */
  readonly repair?: Partial<NodeCommandAnswer>;
  /** false: the probe keeps failing after a successful repair. @default true */
  readonly healsAfterRepair?: boolean;
  /** Whether the pause image is missing now (a node that breaks later): false, the probe passes. @default always */
  readonly broken?: () => boolean;
  /**
   * The node's configured sandbox image: AL2023 bakes `localhost/kubernetes/pause:latest` and the
   * repair re-imports it; any other (AL2's ECR pause image) is pulled with an ECR token.
   * @default 'localhost/kubernetes/pause:latest'
   */
  readonly sandboxImage?: string;
  /**
   * An ECR pull: whether the node gets a registry token now (its role may call
   * ecr:GetAuthorizationToken). Without one the repair fails as repair-pause-image.sh does. @default always
   */
  readonly ecrToken?: () => boolean;
}

/** A simulated node, and whether its sandbox image is in its image store now (the local kubelet asks). */
export type SimulatedPauseNode = LocalNodeBehaviour & { readonly sandboxImagePresent: () => boolean };

/** repair-pause-image.sh's answer on the simulated node: re-import (AL2023) or a pull with an ECR token. */
function simulatedRepair(image: string, o: SimulatedPauseNodeOptions): NodeCommandAnswer {
  const method = image === AL2023_SANDBOX ? 'reimport' : 'ecr-pull';
  const answer = (status: string, pinned: boolean, message: string) =>
    JSON.stringify({ status, image, method, pinned, dryRun: false, message });
  if (method === 'ecr-pull' && o.ecrToken?.() === false)
    return {
      status: 'Failed',
      stdout: answer(
        'failed',
        false,
        'could not get an ECR token (cat failed): does the node role allow ecr:GetAuthorizationToken?',
      ),
    };
  return { status: 'Success', stdout: answer('repaired', true, 'simulated node'), ...o.repair };
}

/**
 * A simulated node whose pause image was deleted (AL2023 by default; `sandboxImage` names another
 * node's configured image): the probe fails until the repair runs. The demo uses it when containerd
 * is not available here (and says so); the workflow tests use it with faults (not managed, stuck or
 * undeliverable commands, a repair that does not heal).
 */
export function simulatedPauseNode(o: SimulatedPauseNodeOptions = {}): SimulatedPauseNode {
  const image = o.sandboxImage ?? AL2023_SANDBOX;
  let repaired = false;
  const healthy = () => (repaired && o.healsAfterRepair !== false) || (o.broken !== undefined && !o.broken());
  return {
    managed: o.managed ?? true,
    sandboxImagePresent: healthy,
    run(document, parameters): NodeCommandAnswer {
      const { name, rejected } = admit(document, parameters);
      if (rejected) return rejected;
      if (name === 'probeNode') {
        const ok = healthy() ? 'pass' : 'fail';
        return {
          status: 'Success',
          stdout: simulatedProbe(
            [
              {
                id: 'node.sandbox-image.present',
                status: ok,
                summary: ok === 'pass' ? 'present' : `${image} is missing from the k8s.io image store`,
              },
              { id: 'node.sandbox-image.pinned', status: ok, summary: ok === 'pass' ? 'pinned' : 'not pinned' },
            ],
            image,
          ),
        };
      }
      if (name === 'repairPauseImage') {
        const answer = simulatedRepair(image, o);
        if (answer.status === 'Success') repaired = true;
        return answer;
      }
      if (name === 'collectLogs') return collectAnswer(parameters);
      return { status: 'Failed', stdout: '', stderr: `simulated node does not run ${document}` };
    },
  };
}
