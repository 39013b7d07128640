import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareVersions, type PreflightRow, preflight } from '../../cli/preflight-checks.js';
import { renderPreflight, renderSignals } from '../../cli/preflight-command.js';
import { preflightSignals } from '../../cli/preflight-signals.js';
import { ClusterApi } from '../../lambdas/aws/readers/kubernetes/cluster-api.js';
import { EksTokenCache } from '../../lambdas/aws/readers/kubernetes/token.js';
import { PROJECT_ROOT } from '../../lib/constructs/paths.js';
import { CLUSTER, NODE_ID, REGION } from '../../local/account-snapshot.js';
import { KubeApiServer } from '../../local/kube-api-server.js';
import { mockPreflightAccount, type PreflightSnapshot, readyPreflightAccount } from '../../local/preflight-account.js';

const NOW = new Date('2026-11-29T10:00:00Z');
const DATAPLANE = `/aws/containerinsights/${CLUSTER}/dataplane`;

async function run(change: (s: PreflightSnapshot) => void = () => {}, region = REGION): Promise<PreflightRow[]> {
  const s = readyPreflightAccount(NOW);
  change(s);
  const clients = mockPreflightAccount(s, region);
  try {
    return await preflight(clients, { cluster: CLUSTER, region, now: NOW });
  } finally {
    clients.restore();
  }
}
const row = (rows: PreflightRow[], id: string) => rows.find((r) => r.id === id);

describe('pod-doctor preflight on recorded responses', () => {
  it('passes every check on an account ready for pod-doctor (IAM events: a warning outside us-east-1)', async () => {
    const rows = await run();
    expect(rows.map((r) => [r.id, r.status])).toEqual([
      ['region.cluster', 'pass'],
      ['eks.authentication-mode', 'pass'],
      ['eks.endpoint-access', 'pass'],
      ['region.iam-events', 'warn'],
      ['cloudtrail.trail', 'pass'],
      ['logs.dataplane', 'pass'],
      ['logs.subscription-filters', 'pass'],
      ['logs.ipamd', 'pass'],
      ['ssm.agent', 'pass'],
      ['nodes.tags', 'pass'],
      ['vpc.ssm-endpoints', 'pass'],
    ]);
    expect(row(rows, 'logs.subscription-filters')?.detail).toBe('1 of 2 subscription filters used; pod-doctor adds 1');
    const text = renderPreflight(CLUSTER, REGION, rows);
    expect(text).toMatch(/^region\.iam-events\s+WARN\s+IAM events reach EventBridge in us-east-1 only/m);
    expect(text).toContain('fix: set "forwardIamEvents": true');
    expect(text).toMatch(/10 pass, 0 fail, 1 warn, 0 unknown$/);
  });

  it('fails a CONFIG_MAP cluster (access entries refused) and names both ways out', async () => {
    const rows = await run((s) => {
      s.account.cluster.accessConfig = { authenticationMode: 'CONFIG_MAP' };
    });
    expect(row(rows, 'eks.authentication-mode')).toMatchObject({
      status: 'fail',
      detail:
        "authentication mode CONFIG_MAP: CloudFormation refuses pod-doctor's access entries, failing the deployment",
    });
    expect(row(rows, 'eks.authentication-mode')?.fix).toContain('authenticationMode=API_AND_CONFIG_MAP');
    expect(row(rows, 'eks.authentication-mode')?.fix).toContain(`"kubernetesApi": false on cluster ${CLUSTER}`);
    const older = await run((s) => {
      s.account.cluster.accessConfig = undefined;
    });
    expect(row(older, 'eks.authentication-mode')?.status).toBe('unknown');
  });

  it('fails a private-only endpoint and a public one limited to some addresses; unknown without settings', async () => {
    const vpc = (change: object) =>
      run((s) => {
        s.account.cluster.resourcesVpcConfig = { ...s.account.cluster.resourcesVpcConfig, ...change };
      });
    const priv = row(await vpc({ endpointPublicAccess: false, endpointPrivateAccess: true }), 'eks.endpoint-access');
    expect(priv).toMatchObject({ status: 'fail', detail: expect.stringContaining('private endpoint only') });
    expect(priv?.fix).toContain('"kubernetesApi": false');
    const limited = row(await vpc({ publicAccessCidrs: ['203.0.113.0/24'] }), 'eks.endpoint-access');
    expect(limited).toMatchObject({ status: 'fail', detail: expect.stringContaining('limited to 203.0.113.0/24') });
    const unsaid = await vpc({ endpointPublicAccess: undefined, publicAccessCidrs: undefined });
    expect(row(unsaid, 'eks.endpoint-access')?.status).toBe('unknown');
  });

  it('fails when no trail is logging in the region, and says how to start one', async () => {
    const rows = await run((s) => {
      for (const k of Object.keys(s.trailStatus)) s.trailStatus[k].IsLogging = false;
    });
    expect(row(rows, 'cloudtrail.trail')).toMatchObject({
      status: 'fail',
      detail: `trail(s) management-events cover ${REGION} but none is logging`,
      fix: expect.stringContaining('aws cloudtrail start-logging'),
    });
    const none = await run((s) => {
      s.trails = [{ ...s.trails[0], IsMultiRegionTrail: false, HomeRegion: 'us-east-1' }];
    });
    expect(row(none, 'cloudtrail.trail')).toMatchObject({ status: 'fail', detail: `no trail covers ${REGION}` });
  });

  it('fails when the dataplane log group does not exist yet', async () => {
    const rows = await run((s) => {
      s.logGroups = [];
    });
    expect(row(rows, 'logs.dataplane')).toMatchObject({
      status: 'fail',
      fix: expect.stringContaining('amazon-cloudwatch-observability'),
    });
    expect(row(rows, 'logs.subscription-filters')).toBeUndefined();
  });

  it('fails when the log group already has the 2 subscription filters CloudWatch Logs allows', async () => {
    const rows = await run((s) => {
      s.subscriptionFilters[DATAPLANE].push({ ...s.subscriptionFilters[DATAPLANE][0], filterName: 'splunk' });
    });
    expect(row(rows, 'logs.subscription-filters')).toMatchObject({
      status: 'fail',
      detail: `${DATAPLANE} already has 2 subscription filters (datadog-forwarder, splunk); CloudWatch Logs allows 2`,
    });
  });

  it('says unknown, not pass, when no ipamd line reached the log group in 24 h', async () => {
    const rows = await run((s) => {
      s.logEvents[DATAPLANE] = [];
    });
    expect(row(rows, 'logs.ipamd')).toMatchObject({
      status: 'unknown',
      fix: expect.stringContaining('AWS_VPC_K8S_CNI_LOG_FILE'),
    });
  });

  it('fails on an SSM agent older than 3.3.2746.0, and on a node SSM does not manage', async () => {
    const old = await run((s) => {
      s.instanceInformation[0].AgentVersion = '3.2.1630.0';
    });
    expect(row(old, 'ssm.agent')).toMatchObject({
      status: 'fail',
      detail: `${NODE_ID}: agent 3.2.1630.0 < 3.3.2746.0`,
    });
    const unmanaged = await run((s) => {
      s.instanceInformation = [];
    });
    expect(row(unmanaged, 'ssm.agent')?.detail).toBe(`${NODE_ID}: not managed by SSM`);
    expect(compareVersions('3.3.10000.0', '3.3.2746.0')).toBe(1);
  });

  it('fails for a node whose tags SendCommand would not accept; Karpenter and self-managed tags pass', async () => {
    const eksctlOnly = await run((s) => {
      s.account.instances[0].Tags = [{ Key: 'alpha.eksctl.io/cluster-name', Value: CLUSTER }];
    });
    expect(row(eksctlOnly, 'nodes.tags')).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining(NODE_ID),
      fix: expect.stringContaining(`eks:eks-cluster-name=${CLUSTER}`),
    });
    for (const Tags of [
      [{ Key: 'eks:eks-cluster-name', Value: CLUSTER }],
      [{ Key: `kubernetes.io/cluster/${CLUSTER}`, Value: 'owned' }],
    ]) {
      const rows = await run((s) => {
        s.account.instances[0].Tags = Tags;
      });
      expect(row(rows, 'nodes.tags')?.status).toBe('pass');
    }
  });

  it('fails when nodes have no internet route and an SSM endpoint is missing; passes with a NAT route', async () => {
    const rows = await run((s) => {
      s.account.vpcEndpoints = s.account.vpcEndpoints.filter((e) => !e.ServiceName?.endsWith('.ssmmessages'));
    });
    expect(row(rows, 'vpc.ssm-endpoints')).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('lacks endpoint(s) ssmmessages'),
    });
    const nat = await run((s) => {
      s.account.vpcEndpoints = [];
      s.account.routeTables[0].Routes?.push({
        DestinationCidrBlock: '0.0.0.0/0',
        NatGatewayId: 'nat-0a1b2c3d4e5f60718',
        State: 'active',
      });
    });
    expect(row(nat, 'vpc.ssm-endpoints')?.status).toBe('pass');
  });

  it('fails when the cluster is not in the region given', async () => {
    const rows = await run(() => {}, 'us-west-2');
    expect(row(rows, 'region.cluster')).toMatchObject({ status: 'fail', detail: `no cluster ${CLUSTER} in us-west-2` });
  });
});

describe('pod-doctor preflight command', () => {
  it('says clearly that credentials are missing instead of failing with a stack trace', () => {
    const home = mkdtempSync(join(tmpdir(), 'pod-doctor-nocreds-'));
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('AWS_')));
    const r = spawnSync(
      'node',
      [
        '--import',
        'tsx',
        join(PROJECT_ROOT, 'bin', 'pod-doctor.ts'),
        'preflight',
        '--cluster',
        'prod-eu',
        '--region',
        'eu-west-1',
      ],
      {
        encoding: 'utf8',
        cwd: PROJECT_ROOT,
        env: {
          ...env,
          HOME: home,
          AWS_EC2_METADATA_DISABLED: 'true',
          AWS_CONFIG_FILE: join(home, 'none'),
          AWS_SHARED_CREDENTIALS_FILE: join(home, 'none'),
        },
      },
    );
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('pod-doctor preflight: no usable AWS credentials');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('requires a cluster', () => {
    const r = spawnSync('node', ['--import', 'tsx', join(PROJECT_ROOT, 'bin', 'pod-doctor.ts'), 'preflight'], {
      encoding: 'utf8',
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--cluster is required');
  });
});

describe('pod-doctor preflight: each signal of the cluster', () => {
  /** The signals of the recorded account, the cluster's API answering as `groups` allow. */
  async function signals(change: (s: PreflightSnapshot) => void = () => {}, groups = ['pod-doctor']) {
    const s = readyPreflightAccount(NOW);
    change(s);
    const clients = mockPreflightAccount(s, REGION);
    const server = new KubeApiServer({ groups });
    const endpoint = await server.start();
    const tokens = new EksTokenCache({ accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'x' });
    try {
      return await preflightSignals(
        {
          ...clients,
          kubernetes: async (name) =>
            new ClusterApi({ name, region: REGION, endpoint, certificateAuthorityData: server.caData }, tokens, {
              maxAttempts: 1,
            }),
        },
        { cluster: CLUSTER, region: REGION, now: NOW },
      );
    } finally {
      clients.restore();
      await server.stop();
    }
  }

  it('reports the four signals alive on an account ready for pod-doctor', { timeout: 60_000 }, async () => {
    const r = await signals();
    expect(r.map((x) => [x.signal, x.status])).toEqual([
      ['kubernetes-events', 'ok'],
      ['dataplane-logs', 'ok'],
      ['application-logs', 'ok'],
      ['cloudtrail', 'ok'],
    ]);
    expect(renderSignals(r)).toMatch(
      /^dataplane-logs\s+OK\s+kubelet line in \/aws\/containerinsights\/.*\/dataplane at /m,
    );
  });

  it('a cluster with Kubernetes events and CloudTrail only: the log groups absent, the others alive', {
    timeout: 60_000,
  }, async () => {
    const r = await signals((s) => {
      s.logGroups = [];
    });
    expect(Object.fromEntries(r.map((x) => [x.signal, x.status]))).toEqual({
      'kubernetes-events': 'ok',
      'dataplane-logs': 'absent',
      'application-logs': 'absent',
      cloudtrail: 'ok',
    });
  });

  it('a dataplane group without a kubelet line in 24 h is silent; credentials the cluster refuses leave events unknown', {
    timeout: 60_000,
  }, async () => {
    const r = await signals(
      (s) => {
        s.logEvents[DATAPLANE] = s.logEvents[DATAPLANE].filter((e) => !(e.message ?? '').includes('kubelet'));
      },
      ['nobody'],
    );
    expect(r.find((x) => x.signal === 'dataplane-logs')).toMatchObject({ status: 'silent' });
    expect(r.find((x) => x.signal === 'kubernetes-events')).toMatchObject({
      status: 'unknown',
      detail: expect.stringContaining('KubernetesForbiddenError'),
    });
  });
});
