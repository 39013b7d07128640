import { V1DaemonSet } from '@kubernetes/client-node/dist/gen/models/V1DaemonSet.js';
import { V1Pod } from '@kubernetes/client-node/dist/gen/models/V1Pod.js';
import { CoreV1Api } from '../../lambdas/aws/readers/kubernetes/client.js';
import { ClusterApi } from '../../lambdas/aws/readers/kubernetes/cluster-api.js';
import { EksTokenCache } from '../../lambdas/aws/readers/kubernetes/token.js';

/**
 * A bundle entry for test/infra/bundled-kubernetes.test.ts: ClusterApi bundled with the deployed
 * options reads the API server at KUBE_ENDPOINT (CA in KUBE_CA) two items a page, and prints what
 * the library's ObjectSerializer made of the answers: model instances, Date fields, `_continue`.
 */
const api = new ClusterApi(
  {
    name: 'prod',
    region: 'us-east-2',
    endpoint: process.env.KUBE_ENDPOINT ?? '',
    certificateAuthorityData: process.env.KUBE_CA ?? '',
  },
  new EksTokenCache({ accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' }),
  { pageSize: 2 },
);
const isDate = (v: unknown) => v instanceof Date && !Number.isNaN(v.getTime());
const node = process.env.KUBE_NODE ?? '';

// Pages follow `metadata._continue`: the serializer's name for the wire's `continue`.
const pods = await api.podsOnNode(node);
const [namespace, name] = [pods[0]?.metadata?.namespace ?? '', pods[0]?.metadata?.name ?? ''];
const events = await api.call('list events', (kc) =>
  kc.makeApiClient(CoreV1Api).listNamespacedEvent({ namespace, fieldSelector: `involvedObject.name=${name}` }),
);
const daemonSet = await api.awsNodeDaemonSet();
const classified = await api.podEvents(namespace, name);
process.stdout.write(
  JSON.stringify({
    pods: pods.length,
    podsAreV1Pod: pods.every((p) => p instanceof V1Pod),
    podsCreated: pods.filter((p) => p.metadata?.creationTimestamp !== undefined).length,
    podsCreatedAsDate: pods.filter((p) => isDate(p.metadata?.creationTimestamp)).length,
    events: events.items.length,
    eventsLastAsDate: events.items.filter((e) => isDate(e.lastTimestamp)).length,
    classified: classified.map((e) => `${e.reason}@${e.at}`),
    daemonSetIsV1DaemonSet: daemonSet instanceof V1DaemonSet,
    awsNodeImage: (daemonSet as V1DaemonSet).spec?.template.spec?.containers.find((c) => c.name === 'aws-node')?.image,
    node: (await api.node(node))?.metadata?.name,
  }),
);
