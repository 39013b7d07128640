import type { _InstanceType } from '@aws-sdk/client-ec2';
import {
  DescribeAddonCommand,
  DescribeAddonVersionsCommand,
  DescribeClusterCommand,
  DescribeNodegroupCommand,
  type EKSClient,
  ResourceNotFoundException,
} from '@aws-sdk/client-eks';
import { type Finding, finding } from '../../core/contract/findings.js';
import { DescribeInstanceTypesCommand, DescribeNetworkInterfacesCommand, type Ec2Client } from '../ec2/commands.js';
import type { NodeContext } from '../readers/account/node-context.js';

const CORE_ADDONS = ['vpc-cni', 'kube-proxy', 'coredns'] as const;

/** Compares EKS build versions like v1.19.2-eksbuild.1 (semver parts, then the eksbuild number). */
export function compareAddonVersions(a: string, b: string): number {
  const parse = (v: string) => (v.match(/\d+/g) ?? []).map(Number);
  const x = parse(a);
  const y = parse(b);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** eks.addon-versions: vpc-cni, kube-proxy, coredns against the default version for the cluster version. */
export async function checkAddonVersions(eks: EKSClient, cluster: string): Promise<Finding> {
  const id = 'eks.addon-versions';
  const k8s = (await eks.send(new DescribeClusterCommand({ name: cluster }))).cluster?.version ?? '';
  const rows: Record<string, unknown>[] = [];
  for (const name of CORE_ADDONS) {
    let installed: string | undefined;
    let status: string | undefined;
    try {
      const a = await eks.send(new DescribeAddonCommand({ clusterName: cluster, addonName: name }));
      installed = a.addon?.addonVersion;
      status = a.addon?.status;
    } catch (e) {
      if (!(e instanceof ResourceNotFoundException)) throw e;
    }
    const versions = await eks.send(new DescribeAddonVersionsCommand({ addonName: name, kubernetesVersion: k8s }));
    const infos = versions.addons?.[0]?.addonVersions ?? [];
    const def = infos.find((v) =>
      v.compatibilities?.some((c) => c.clusterVersion === k8s && c.defaultVersion),
    )?.addonVersion;
    rows.push({
      addon: name,
      installed: installed ?? 'self-managed (not an EKS add-on)',
      status,
      default: def ?? null,
    });
  }
  const evidence = { cluster, kubernetesVersion: k8s, addons: rows };
  const degraded = rows.filter((r) => r.status && r.status !== 'ACTIVE');
  const behind = rows.filter(
    (r) =>
      typeof r.installed === 'string' &&
      r.default &&
      r.installed.startsWith('v') &&
      compareAddonVersions(r.installed, String(r.default)) < 0,
  );
  if (degraded.length) {
    return finding(
      id,
      'fail',
      `add-on(s) not active: ${degraded.map((r) => `${r.addon} ${r.status}`).join(', ')}`,
      evidence,
      'inspect the add-on health issues (aws eks describe-addon) and resolve conflicts',
    );
  }
  if (behind.length) {
    return finding(
      id,
      'warn',
      `add-on(s) older than the default for Kubernetes ${k8s}: ${behind.map((r) => `${r.addon} ${r.installed} < ${r.default}`).join(', ')}`,
      evidence,
      `update with aws eks update-addon --cluster-name ${cluster} --addon-name <name> --addon-version <default>`,
    );
  }
  return finding(
    id,
    'pass',
    `vpc-cni, kube-proxy and coredns are at or above the defaults for Kubernetes ${k8s}`,
    evidence,
  );
}

/** eks.node-ami: node group AMI type and release age (release versions end in the build date, YYYYMMDD). */
export async function checkNodeAmi(
  eks: EKSClient,
  cluster: string,
  node: NodeContext,
  now: Date,
  maxAgeDays = 90,
): Promise<Finding> {
  const id = 'eks.node-ami';
  if (!node.nodegroupName)
    return finding(id, 'warn', `node ${node.instanceId} is not in a managed node group; AMI age not checked`, {
      amiId: node.amiId,
    });
  const ng = (await eks.send(new DescribeNodegroupCommand({ clusterName: cluster, nodegroupName: node.nodegroupName })))
    .nodegroup;
  const release = ng?.releaseVersion ?? '';
  const date = /(\d{4})(\d{2})(\d{2})$/.exec(release);
  const ageDays = date
    ? Math.floor((now.getTime() - Date.UTC(Number(date[1]), Number(date[2]) - 1, Number(date[3]))) / 86_400_000)
    : undefined;
  const evidence = {
    nodegroup: node.nodegroupName,
    amiType: ng?.amiType,
    releaseVersion: release,
    ageDays: ageDays ?? null,
    amiId: node.amiId,
  };
  if (ageDays === undefined)
    return finding(
      id,
      'warn',
      `release version ${release || 'unknown'} of ${node.nodegroupName} has no build date`,
      evidence,
    );
  if (ageDays > maxAgeDays) {
    return finding(
      id,
      'warn',
      `${node.nodegroupName} runs ${ng?.amiType} release ${release}, ${ageDays} days old`,
      evidence,
      `update the node group AMI: aws eks update-nodegroup-version --cluster-name ${cluster} --nodegroup-name ${node.nodegroupName}`,
    );
  }
  return finding(
    id,
    'pass',
    `${node.nodegroupName} runs ${ng?.amiType} release ${release} (${ageDays} days old)`,
    evidence,
  );
}

/** node.eni-capacity: ENIs and IPs per ENI of the instance type against what is attached and assigned. */
export async function checkEniCapacity(ec2: Ec2Client, node: NodeContext): Promise<Finding> {
  const id = 'node.eni-capacity';
  const t = (await ec2.send(new DescribeInstanceTypesCommand({ InstanceTypes: [node.instanceType as _InstanceType] })))
    .InstanceTypes?.[0];
  const maxEnis = t?.NetworkInfo?.MaximumNetworkInterfaces ?? 0;
  const ipsPerEni = t?.NetworkInfo?.Ipv4AddressesPerInterface ?? 0;
  const enis =
    (
      await ec2.send(
        new DescribeNetworkInterfacesCommand({
          Filters: [{ Name: 'attachment.instance-id', Values: [node.instanceId] }],
        }),
      )
    ).NetworkInterfaces ?? [];
  const ips = enis.reduce((n, e) => n + (e.PrivateIpAddresses?.length ?? 0), 0);
  const prefixes = enis.reduce((n, e) => n + (e.Ipv4Prefixes?.length ?? 0), 0);
  // Secondary-IP mode: each ENI's primary address is the ENI's own; max pods = ENIs * (IPs - 1) + 2.
  const maxPodIps = maxEnis * (ipsPerEni - 1);
  const usedPodIps = ips - enis.length;
  const evidence = {
    instanceType: node.instanceType,
    maxEnis,
    ipsPerEni,
    attachedEnis: enis.length,
    assignedIps: ips,
    delegatedPrefixes: prefixes,
    maxPodsSecondaryIpMode: maxPodIps + 2,
  };
  if (prefixes === 0 && enis.length >= maxEnis && usedPodIps >= maxPodIps) {
    return finding(
      id,
      'fail',
      `${node.instanceType} is at its limit: ${enis.length}/${maxEnis} ENIs, ${ips} addresses (${ipsPerEni} per ENI)`,
      evidence,
      'enable prefix delegation (ENABLE_PREFIX_DELEGATION=true), lower max pods, or use a larger instance type',
    );
  }
  if (prefixes === 0 && enis.length >= maxEnis) {
    return finding(
      id,
      'warn',
      `${node.instanceType} has all ${maxEnis} ENIs attached; ${maxPodIps - usedPodIps} pod addresses left`,
      evidence,
      'consider prefix delegation',
    );
  }
  return finding(
    id,
    'pass',
    `${node.instanceType}: ${enis.length}/${maxEnis} ENIs, ${ips} addresses${prefixes ? `, ${prefixes} /28 prefixes` : ''}`,
    evidence,
  );
}
