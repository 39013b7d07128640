import { NODE_DNS } from './account-snapshot.js';
import { isChange, isEventReport } from './kube-api-helpers.js';
import { KubeApiServer, type RecordedCluster, recordedCluster } from './kube-api-server.js';
import type { ControllerBehaviour } from './kube-api-writes.js';
import { type LocalKubernetes, localKubernetes } from './kubernetes.js';
import { type ClusterNetwork, type Placement, PUBLIC_NETWORK, reaches, SilentEndpoint } from './network.js';

/** The node of the recorded cluster (test/fixtures/kubernetes/cluster.json) whose pods are stuck. */
const RECORDED_NODE = 'ip-192-168-149-143.us-east-2.compute.internal';

/**
 * The recorded cluster on the local account's node: the failing node's name replaced by `nodeName`
 * everywhere (its Node object, the stuck pods, the aws-node pod there, their events), so the node
 * the workflow resolves from EC2 is the one the API server knows.
 */
export function clusterOnNode(nodeName: string = NODE_DNS): RecordedCluster {
  return JSON.parse(JSON.stringify(recordedCluster()).replaceAll(RECORDED_NODE, nodeName)) as RecordedCluster;
}

/**
 * The cluster with one Windows node besides its Linux ones: a copy of its first node as the kubelet of
 * a Windows Server node labels itself (kubernetes.io/os=windows), for Windows IPAM, which only
 * matters where Windows nodes run.
 * https://kubernetes.io/docs/reference/labels-annotations-taints/#kubernetes-io-os
 */
export function withWindowsNode(cluster: RecordedCluster): RecordedCluster {
  const base = structuredClone(cluster.nodes[0]) as { metadata: { name: string; labels?: Record<string, string> } };
  base.metadata.name = 'ip-192-168-160-9.us-east-2.compute.internal';
  base.metadata.labels = { ...base.metadata.labels, 'kubernetes.io/os': 'windows', 'beta.kubernetes.io/os': 'windows' };
  return { ...cluster, nodes: [...cluster.nodes, base] };
}

/**
 * A cluster for one run: the local HTTPS API server (the shipped RBAC and admission policies as its
 * authorizer) seeded with `cluster`, and the Kubernetes function's code against it.
 */
export class LocalCluster {
  private constructor(
    readonly server: KubeApiServer,
    readonly kubernetes: LocalKubernetes,
    /** `https://127.0.0.1:<port>` of the API server. */
    readonly endpoint: string,
    /** Where the endpoint listens (its `resourcesVpcConfig`): who may reach it. */
    readonly network: ClusterNetwork,
    private readonly silent?: SilentEndpoint,
    private readonly silentUrl?: string,
  ) {}

  /**
   * `network`: where the endpoint listens; a function the template places where it could not reach
   * it gets no answer (default: a public endpoint open to all, as the recorded cluster's).
   */
  static async start(
    cluster: RecordedCluster,
    o: { behaviour?: ControllerBehaviour; watchSeconds?: number; network?: ClusterNetwork } = {},
  ): Promise<LocalCluster> {
    const server = new KubeApiServer({}, { awsNodeReadyAfterMs: 200, ...o.behaviour });
    server.cluster = cluster;
    const endpoint = await server.start();
    const network = o.network ?? PUBLIC_NETWORK;
    const silent = o.network ? new SilentEndpoint() : undefined;
    const silentUrl = await silent?.start();
    const gate = silentUrl ? { cluster: network, silent: silentUrl } : undefined;
    return new LocalCluster(
      server,
      localKubernetes(server, endpoint, o.watchSeconds ?? 2, gate),
      endpoint,
      network,
      silent,
      silentUrl,
    );
  }

  /** The endpoint a function placed so is led to: the API server, or one that never answers. */
  endpointFor(placement: Placement): string {
    const reach = reaches(placement, this.network);
    if (reach.reached || !this.silentUrl) return this.endpoint;
    this.kubernetes.refused.push(reach.reason);
    return this.silentUrl;
  }

  /** The aws-node pod on the node, as the API server holds it now. */
  awsNodeOn(nodeName: string = NODE_DNS): Record<string, unknown> | undefined {
    return this.server.cluster.awsNodePods.find(
      (p) => (p.spec as { nodeName?: string } | undefined)?.nodeName === nodeName,
    );
  }

  /** `enable-windows-ipam` of ConfigMap kube-system/amazon-vpc-cni now (undefined: key or ConfigMap absent). */
  windowsIpam(): string | undefined {
    return (this.server.cluster.vpcCniConfigMap as { data?: Record<string, string> } | undefined)?.data?.[
      'enable-windows-ipam'
    ];
  }

  /**
   * Requests that changed an object (method and path), in order: every non-GET but the run's reports
   * (events.k8s.io creates, which add a record and change nothing; see {@link reports}).
   */
  writes(): string[] {
    return this.server.seen.filter(isChange).map((s) => `${s.method} ${s.path}`);
  }

  /** The events the run wrote back (events.k8s.io creates): namespace and the object each is about. */
  reports(): { namespace: string; regarding: string }[] {
    return this.server.seen.filter(isEventReport).map((s) => {
      const body = JSON.parse(s.body ?? '{}') as { regarding?: { kind?: string; name?: string } };
      return {
        namespace: /\/namespaces\/([^/]+)\/events$/.exec(s.path)?.[1] ?? '',
        regarding: `${body.regarding?.kind}/${body.regarding?.name}`,
      };
    });
  }

  async stop(): Promise<void> {
    await this.silent?.stop();
    return this.server.stop();
  }
}
