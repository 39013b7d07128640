import { join } from 'node:path';
import { type AccountSnapshot, NODE_ROLE } from '../local/account-snapshot.js';
import { AL2023_PAUSE, LocalNode, missingLocalNodePackages, REGISTRY_TOKEN } from '../local/local-node.js';
import type { LocalNodeBehaviour } from '../local/local-workflow.js';
import { simulate } from '../local/mock-account-writes.js';
import { realNode, simulatedNode, simulatedPauseNode } from '../local/node-adapters.js';
import { ecrTokenFollowsAccount } from '../local/node-credentials.js';
import { ECR_PAUSE, type Scenario } from './scenario-kit.js';

/** What runs a scenario's node: the local containerd, or a simulation (and then the demo says so). */
export type NodeKind = 'real containerd' | 'simulated';

/** The local containerd + registry, started on first use; unavailable prerequisites are reported once. */
export class NodeStage {
  private node?: LocalNode;
  readonly unavailable?: string;
  constructor(simulate = false) {
    const missing = simulate ? [] : missingLocalNodePackages();
    if (simulate) this.unavailable = 'simulated nodes asked for';
    else if (missing.length > 0)
      this.unavailable = `needs ${missing.join(', ')} (apt-get install -y ${missing.join(' ')})`;
    else if (process.getuid?.() !== 0) this.unavailable = 'containerd needs root';
  }
  async get(): Promise<LocalNode> {
    this.node ??= await new LocalNode().start();
    return this.node;
  }
  stop(): void {
    this.node?.stop();
  }
}

/**
 * The scenario's node: its SSM behaviour, what it is, and (a real node) whether its containerd holds
 * the sandbox image now (the local kubelet asks before it lets stuck pods run).
 */
export async function nodeFor(
  s: Scenario,
  stage: NodeStage,
  account: AccountSnapshot,
): Promise<{ behaviour: LocalNodeBehaviour; kind: NodeKind; sandboxImagePresent?: () => boolean }> {
  if (s.node.kind === 'simulated') {
    const node = simulatedNode(s.node.probe);
    // Where the node itself is the cause (its probe fails), its pods start once it is healthy again.
    const nodeIsCause = s.node.probe.some((f) => f.status === 'fail');
    return { behaviour: node, kind: 'simulated', ...(nodeIsCause ? { sandboxImagePresent: node.healthy } : {}) };
  }
  if (stage.unavailable) {
    // The scenario's own node, simulated: AL2023 re-imports its baked image; AL2 pulls the ECR pause
    // image with a token its role may or may not get (as the real node's ECR_PASSWORD_CMD does).
    const node = simulatedPauseNode(
      s.node.variant === 'al2023'
        ? {}
        : {
            sandboxImage: ECR_PAUSE,
            ecrToken: () => simulate(account, NODE_ROLE, 'ecr:GetAuthorizationToken') === 'allowed',
          },
    );
    return { behaviour: node, kind: 'simulated', sandboxImagePresent: node.sandboxImagePresent };
  }
  const node = await stage.get();
  const al2023 = s.node.variant === 'al2023';
  node.removeImage(AL2023_PAUSE, node.registryImage);
  const image = al2023 ? AL2023_PAUSE : node.registryImage;
  const tokenFile = join(node.dir, `ecr-token-${s.name}`);
  const behaviour = realNode(node, {
    env: {
      CONTAINERD_CONFIG: node.writeConfig(`${s.name}.toml`, image, al2023 ? 'containerd2' : 'containerd1'),
      PAUSE_TAR: al2023 ? node.pauseTar : join(node.dir, 'no-pause.tar'),
      // The node role answers for the ECR token: the token exists only while the recorded account's
      // IAM lets the node role get one (see ecrTokenFollowsAccount).
      ECR_PASSWORD_CMD: `cat ${tokenFile}`,
      CTR_PULL_ARGS: '--plain-http',
      KUBELET_ARGS: `--pod-infra-container-image=${image}`,
      // Never reach out of this machine: the registry endpoint is the loopback registry.
      PROBE_ENDPOINTS: `127.0.0.1:${node.registryPort}`,
    },
    // The loopback registry (htpasswd, answers 401 like ECR) stands in for the ECR pause repository.
    imageAliases: { [ECR_PAUSE]: node.registryImage },
  });
  return {
    kind: 'real containerd',
    behaviour: ecrTokenFollowsAccount(behaviour, { account, roleName: NODE_ROLE, tokenFile, token: REGISTRY_TOKEN }),
    sandboxImagePresent: () => node.present(image),
  };
}
