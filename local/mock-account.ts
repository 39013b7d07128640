import {
  DescribeInstancesCommand,
  DescribeInstanceTypesCommand,
  DescribeNetworkInterfacesCommand,
  DescribeRouteTablesCommand,
  DescribeSecurityGroupsCommand,
  DescribeSubnetsCommand,
  DescribeVpcEndpointsCommand,
  EC2Client,
  type Filter,
  GetSubnetCidrReservationsCommand,
} from '@aws-sdk/client-ec2';
import {
  DescribeImagesCommand,
  DescribeRepositoriesCommand,
  ECRClient,
  GetRepositoryPolicyCommand,
  ImageNotFoundException,
  RepositoryNotFoundException,
  RepositoryPolicyNotFoundException,
} from '@aws-sdk/client-ecr';
import {
  DescribeAccessEntryCommand,
  DescribeAddonCommand,
  DescribeAddonVersionsCommand,
  DescribeClusterCommand,
  DescribeNodegroupCommand,
  DescribePodIdentityAssociationCommand,
  EKSClient,
  ListAccessEntriesCommand,
  ListNodegroupsCommand,
  ListPodIdentityAssociationsCommand,
  ResourceNotFoundException,
} from '@aws-sdk/client-eks';
import {
  GetInstanceProfileCommand,
  GetPolicyCommand,
  GetPolicyVersionCommand,
  GetRolePolicyCommand,
  IAMClient,
  ListAttachedRolePoliciesCommand,
  ListRolePoliciesCommand,
  NoSuchEntityException,
} from '@aws-sdk/client-iam';
import { mockClient } from 'aws-sdk-client-mock';
import type { CheckClients } from '../lambdas/aws/checks/groups.js';
import {
  type ChangeReader,
  changeReaderOf,
  changeRecord,
  fromCloudTrailRecord,
} from '../lambdas/core/change-records.js';
import { evaluate, namesPrincipal, type PolicyDocument } from '../lambdas/core/iam-policy.js';
import type { AccountSnapshot } from './account-snapshot.js';
import { mockReservationWrites, mockWrites, type WriteFaults } from './mock-account-writes.js';

const meta = (httpStatusCode: number) => ({
  httpStatusCode,
  requestId: '5c1a8f3e-8d2b-4c9e-9a55-0c6f1d2e3a4b',
  attempts: 1,
  totalRetryDelay: 0,
});

/** Faults to inject by command name (e.g. DescribeSubnetsCommand). */
export interface Faults extends WriteFaults {
  readonly throttle?: readonly string[];
  readonly deny?: readonly string[];
}

function fault(name: string, faults: Faults): Error | undefined {
  if (faults.throttle?.includes(name)) {
    return serviceError('ThrottlingException', 'Rate exceeded', 400);
  }
  if (faults.deny?.includes(name)) {
    // EC2 says UnauthorizedOperation; the other services AccessDenied(Exception).
    const ec2 =
      /^(Describe(Instances|RouteTables|VpcEndpoints|SecurityGroups|Subnets|NetworkInterfaces|InstanceTypes)|GetSubnetCidrReservations)Command$/.test(
        name,
      );
    return serviceError(
      ec2 ? 'UnauthorizedOperation' : 'AccessDeniedException',
      `User: arn:aws:sts::111122223333:assumed-role/PodDoctorCheck/pod-doctor is not authorized to perform: ${name.replace(/Command$/, '')}`,
      403,
    );
  }
  return undefined;
}

/** An error shaped like the SDK's ServiceException (name, $fault, $metadata). */
function serviceError(name: string, message: string, httpStatusCode: number): Error {
  return Object.assign(new Error(message), { name, $fault: 'client', $metadata: meta(httpStatusCode) });
}

/**
 * Pages of a list the way EC2 returns them: at most `size` items and a NextToken for the rest. A small
 * default page makes every caller prove it follows NextToken.
 */
function paged<T>(items: readonly T[], token: string | undefined, size = 2): { items: T[]; NextToken?: string } {
  const start = token ? Number(token.replace('page-', '')) : 0;
  const end = start + size;
  return { items: items.slice(start, end), NextToken: end < items.length ? `page-${end}` : undefined };
}

function filterValues(filters: Filter[] | undefined, name: string): string[] | undefined {
  return filters?.find((f) => f.Name === name)?.Values;
}

const glob = (pattern: string, v: string | undefined) =>
  v !== undefined && new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`).test(v);

/** SDK clients answering from a recorded account (aws-sdk-client-mock), with optional injected faults. */
export function mockAccount(account: AccountSnapshot, faults: Faults = {}): CheckClients & { restore(): void } {
  const ec2 = new EC2Client({
    region: account.region,
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'x' },
  });
  const iam = new IAMClient({ region: 'us-east-1', credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'x' } });
  const eks = new EKSClient({
    region: account.region,
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'x' },
  });
  const ecr = new ECRClient({
    region: account.region,
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'x' },
  });
  const e = mockClient(ec2);
  const i = mockClient(iam);
  const k = mockClient(eks);
  const r = mockClient(ecr);
  const on =
    <T>(name: string, answer: (input: T) => object) =>
    async (input: T) => {
      const f = fault(name, faults);
      if (f) throw f;
      return { $metadata: meta(200), ...answer(input) };
    };

  // EC2
  e.on(DescribeInstancesCommand).callsFake(
    on('DescribeInstancesCommand', (input: { InstanceIds?: string[]; Filters?: Filter[] }) => {
      const dns = filterValues(input.Filters, 'private-dns-name');
      const found = account.instances.filter((x) =>
        input.InstanceIds
          ? input.InstanceIds.includes(x.InstanceId ?? '')
          : dns
            ? dns.some((d) => glob(d, x.PrivateDnsName))
            : true,
      );
      return {
        Reservations: found.length
          ? [{ ReservationId: 'r-0a1b2c3d4e5f60718', OwnerId: account.accountId, Instances: found }]
          : [],
      };
    }),
  );
  e.on(DescribeRouteTablesCommand).callsFake(
    on('DescribeRouteTablesCommand', (input: { Filters?: Filter[] }) => {
      const subnet = filterValues(input.Filters, 'association.subnet-id');
      const vpc = filterValues(input.Filters, 'vpc-id');
      const main = filterValues(input.Filters, 'association.main');
      return {
        RouteTables: account.routeTables.filter(
          (t) =>
            (!subnet || t.Associations?.some((a) => subnet.includes(a.SubnetId ?? ''))) &&
            (!vpc || vpc.includes(t.VpcId ?? '')) &&
            (!main || t.Associations?.some((a) => a.Main === (main[0] === 'true'))),
        ),
      };
    }),
  );
  e.on(DescribeVpcEndpointsCommand).callsFake(
    on('DescribeVpcEndpointsCommand', (input: { Filters?: Filter[]; NextToken?: string }) => {
      const vpc = filterValues(input.Filters, 'vpc-id');
      const p = paged(
        account.vpcEndpoints.filter((v) => !vpc || vpc.includes(v.VpcId ?? '')),
        input.NextToken,
      );
      return { VpcEndpoints: p.items, NextToken: p.NextToken };
    }),
  );
  e.on(DescribeSecurityGroupsCommand).callsFake(
    on('DescribeSecurityGroupsCommand', (input: { GroupIds?: string[] }) => ({
      SecurityGroups: account.securityGroups.filter((g) => !input.GroupIds || input.GroupIds.includes(g.GroupId ?? '')),
    })),
  );
  e.on(DescribeSubnetsCommand).callsFake(
    on('DescribeSubnetsCommand', (input: { SubnetIds?: string[] }) => ({
      Subnets: account.subnets.filter((s) => !input.SubnetIds || input.SubnetIds.includes(s.SubnetId ?? '')),
    })),
  );
  e.on(DescribeNetworkInterfacesCommand).callsFake(
    on(
      'DescribeNetworkInterfacesCommand',
      (input: { Filters?: Filter[]; NextToken?: string; NetworkInterfaceIds?: string[] }) => {
        const subnet = filterValues(input.Filters, 'subnet-id');
        const instance = filterValues(input.Filters, 'attachment.instance-id');
        const ids = input.NetworkInterfaceIds;
        if (ids) {
          const found = account.networkInterfaces.filter((n) => ids.includes(n.NetworkInterfaceId ?? ''));
          // EC2 refuses the whole call when one id does not exist.
          if (found.length < ids.length)
            throw serviceError(
              'InvalidNetworkInterfaceID.NotFound',
              `The networkInterface ID '${ids[0]}' does not exist`,
              400,
            );
          return { NetworkInterfaces: found };
        }
        const all = account.networkInterfaces.filter(
          (n) =>
            (!subnet || subnet.includes(n.SubnetId ?? '')) &&
            (!instance || instance.includes(n.Attachment?.InstanceId ?? '')),
        );
        // By instance the check reads one call (an instance has a handful of ENIs); by subnet it pages.
        if (instance) return { NetworkInterfaces: all };
        const p = paged(all, input.NextToken, 1);
        return { NetworkInterfaces: p.items, NextToken: p.NextToken };
      },
    ),
  );
  e.on(GetSubnetCidrReservationsCommand).callsFake(
    on('GetSubnetCidrReservationsCommand', (input: { SubnetId?: string }) => {
      const all = account.cidrReservations[input.SubnetId ?? ''] ?? [];
      return {
        SubnetIpv4CidrReservations: all.filter((x) => !x.Cidr?.includes(':')),
        SubnetIpv6CidrReservations: all.filter((x) => x.Cidr?.includes(':')),
      };
    }),
  );
  e.on(DescribeInstanceTypesCommand).callsFake(
    on('DescribeInstanceTypesCommand', (input: { InstanceTypes?: string[] }) => ({
      InstanceTypes: account.instanceTypes.filter(
        (t) => !input.InstanceTypes || input.InstanceTypes.includes(t.InstanceType ?? ''),
      ),
    })),
  );

  // IAM (documents come back URL-encoded, as the real API returns them)
  const noSuch = (what: string) =>
    new NoSuchEntityException({ message: `The ${what} cannot be found.`, $metadata: meta(404) });
  i.on(GetInstanceProfileCommand).callsFake(
    on('GetInstanceProfileCommand', (input: { InstanceProfileName?: string }) => {
      const p = account.instanceProfiles.find((x) => x.InstanceProfileName === input.InstanceProfileName);
      if (!p) throw noSuch(`Instance Profile ${input.InstanceProfileName}`);
      return { InstanceProfile: p };
    }),
  );
  i.on(ListAttachedRolePoliciesCommand).callsFake(
    on('ListAttachedRolePoliciesCommand', (input: { RoleName?: string }) => {
      const role = account.roles[input.RoleName ?? ''];
      if (!role) throw noSuch(`role with name ${input.RoleName}`);
      return {
        AttachedPolicies: role.attached.map((a) => ({ PolicyArn: a, PolicyName: a.split('/').pop() })),
        IsTruncated: false,
      };
    }),
  );
  i.on(ListRolePoliciesCommand).callsFake(
    on('ListRolePoliciesCommand', (input: { RoleName?: string }) => {
      const role = account.roles[input.RoleName ?? ''];
      if (!role) throw noSuch(`role with name ${input.RoleName}`);
      return { PolicyNames: Object.keys(role.inline), IsTruncated: false };
    }),
  );
  i.on(GetPolicyCommand).callsFake(
    on('GetPolicyCommand', (input: { PolicyArn?: string }) => {
      if (!account.managedPolicies[input.PolicyArn ?? '']) throw noSuch(`Policy ${input.PolicyArn}`);
      return {
        Policy: {
          Arn: input.PolicyArn,
          PolicyName: input.PolicyArn?.split('/').pop(),
          DefaultVersionId: 'v7',
          AttachmentCount: 1,
          IsAttachable: true,
        },
      };
    }),
  );
  i.on(GetPolicyVersionCommand).callsFake(
    on('GetPolicyVersionCommand', (input: { PolicyArn?: string; VersionId?: string }) => ({
      PolicyVersion: {
        Document: encodeURIComponent(JSON.stringify(account.managedPolicies[input.PolicyArn ?? ''])),
        VersionId: input.VersionId,
        IsDefaultVersion: true,
      },
    })),
  );
  i.on(GetRolePolicyCommand).callsFake(
    on('GetRolePolicyCommand', (input: { RoleName?: string; PolicyName?: string }) => {
      const doc = account.roles[input.RoleName ?? '']?.inline[input.PolicyName ?? ''];
      if (!doc) throw noSuch(`role policy with name ${input.PolicyName}`);
      return {
        RoleName: input.RoleName,
        PolicyName: input.PolicyName,
        PolicyDocument: encodeURIComponent(JSON.stringify(doc)),
      };
    }),
  );

  // EKS
  const notFound = (what: string) =>
    new ResourceNotFoundException({ message: `No ${what} found for name: x`, $metadata: meta(404) });
  k.on(DescribeClusterCommand).callsFake(on('DescribeClusterCommand', () => ({ cluster: account.cluster })));
  k.on(DescribeAddonCommand).callsFake(
    on('DescribeAddonCommand', (input: { addonName?: string }) => {
      const a = account.addons.find((x) => x.addonName === input.addonName);
      if (!a) throw notFound('addon');
      return { addon: a };
    }),
  );
  k.on(DescribeAddonVersionsCommand).callsFake(
    on('DescribeAddonVersionsCommand', (input: { addonName?: string }) => ({
      addons: account.addonVersions.filter((a) => a.addonName === input.addonName),
    })),
  );
  k.on(DescribeNodegroupCommand).callsFake(
    on('DescribeNodegroupCommand', (input: { nodegroupName?: string }) => {
      const n = account.nodegroups.find((x) => x.nodegroupName === input.nodegroupName);
      if (!n) throw notFound('node group');
      return { nodegroup: n };
    }),
  );
  k.on(ListNodegroupsCommand).callsFake(
    on('ListNodegroupsCommand', () => ({ nodegroups: account.nodegroups.map((n) => n.nodegroupName ?? '') })),
  );
  k.on(ListAccessEntriesCommand).callsFake(
    on('ListAccessEntriesCommand', () => ({ accessEntries: (account.accessEntries ?? []).map((a) => a.principalArn) })),
  );
  k.on(DescribeAccessEntryCommand).callsFake(
    on('DescribeAccessEntryCommand', (input: { principalArn?: string }) => {
      const a = account.accessEntries?.find((x) => x.principalArn === input.principalArn);
      if (!a) throw notFound('access entry');
      return { accessEntry: a };
    }),
  );
  k.on(ListPodIdentityAssociationsCommand).callsFake(
    on('ListPodIdentityAssociationsCommand', (input: { namespace?: string; serviceAccount?: string }) => ({
      associations: account.podIdentityAssociations
        .filter(
          (a) =>
            (!input.namespace || a.namespace === input.namespace) &&
            (!input.serviceAccount || a.serviceAccount === input.serviceAccount),
        )
        .map((a) => ({
          clusterName: a.clusterName,
          namespace: a.namespace,
          serviceAccount: a.serviceAccount,
          associationArn: a.associationArn,
          associationId: a.associationId,
        })),
    })),
  );
  k.on(DescribePodIdentityAssociationCommand).callsFake(
    on('DescribePodIdentityAssociationCommand', (input: { associationId?: string }) => ({
      association: account.podIdentityAssociations.find((a) => a.associationId === input.associationId),
    })),
  );

  // ECR. Another account's repository answers pod-doctor's role only when its policy grants that role.
  const checkRole = `arn:aws:iam::${account.accountId}:role/PodDoctorCheck`;
  const repo = (action: string, name?: string, registryId: string = account.accountId) => {
    const x = Object.values(account.repositories).find(
      (r) => r.repository.repositoryName === name && (r.repository.registryId ?? account.accountId) === registryId,
    );
    if (registryId !== account.accountId) {
      const resource = `arn:aws:ecr:${account.region}:${registryId}:repository/${name}`;
      const granted =
        x?.policyText !== undefined &&
        evaluate(
          [{ name: 'repository-policy', document: JSON.parse(x.policyText) as PolicyDocument }],
          `ecr:${action}`,
          resource,
          (s) => namesPrincipal(s, checkRole),
        ).decision === 'allowed';
      // The message AWS returns (e.g. github.com/ministryofjustice/modernisation-platform/pull/4454).
      if (!granted)
        throw serviceError(
          'AccessDeniedException',
          `User: arn:aws:sts::${account.accountId}:assumed-role/PodDoctorCheck/pod-doctor is not authorized to perform: ecr:${action} on resource: ${resource} because no resource-based policy allows the ecr:${action} action`,
          400,
        );
    }
    if (!x) {
      throw new RepositoryNotFoundException({
        message: `The repository with name '${name}' does not exist in the registry with id '${registryId}'`,
        $metadata: meta(400),
      });
    }
    return x;
  };
  r.on(GetRepositoryPolicyCommand).callsFake(
    on('GetRepositoryPolicyCommand', (input: { repositoryName?: string; registryId?: string }) => {
      const x = repo('GetRepositoryPolicy', input.repositoryName, input.registryId);
      if (!x.policyText) {
        throw new RepositoryPolicyNotFoundException({
          message: `Repository policy does not exist for the repository with name '${input.repositoryName}' in the registry with id '${input.registryId}'`,
          $metadata: meta(400),
        });
      }
      return { registryId: input.registryId, repositoryName: input.repositoryName, policyText: x.policyText };
    }),
  );
  r.on(DescribeImagesCommand).callsFake(
    on(
      'DescribeImagesCommand',
      (input: {
        repositoryName?: string;
        registryId?: string;
        imageIds?: { imageTag?: string; imageDigest?: string }[];
      }) => {
        const x = repo('DescribeImages', input.repositoryName, input.registryId);
        if (!input.imageIds) return { imageDetails: x.images };
        const found = x.images.filter((img) =>
          input.imageIds?.some(
            (id) =>
              (id.imageTag && img.imageTags?.includes(id.imageTag)) ||
              (id.imageDigest && img.imageDigest === id.imageDigest),
          ),
        );
        if (!found.length) {
          const id = input.imageIds[0];
          throw new ImageNotFoundException({
            message: `The image with imageId {imageDigest:'${id.imageDigest ?? 'null'}', imageTag:'${id.imageTag ?? 'null'}'} does not exist within the repository with name '${input.repositoryName}' in the registry with id '${account.accountId}'`,
            $metadata: meta(400),
          });
        }
        return { imageDetails: found };
      },
    ),
  );
  r.on(DescribeRepositoriesCommand).callsFake(
    on('DescribeRepositoriesCommand', (input: { registryId?: string }) => {
      const registryId = input.registryId ?? account.accountId;
      if (registryId !== account.accountId) repo('DescribeRepositories', '*', registryId);
      return {
        repositories: Object.values(account.repositories)
          .map((x) => x.repository)
          .filter((r) => (r.registryId ?? account.accountId) === registryId),
      };
    }),
  );

  // The writes of the account remedies change the snapshot itself: later reads see them.
  mockWrites(account, { iam: i, ec2: e }, on as never, faults);
  mockReservationWrites(account, e, on as never, faults);

  // The change index, as the ingest path fills it from the CloudTrail events EventBridge delivers
  // (built on each read: tests add events to the snapshot after the clients exist).
  const index = () =>
    changeReaderOf(
      account.cloudTrailEvents.flatMap((ev) => {
        const record = {
          ...(JSON.parse(ev.CloudTrailEvent ?? '{}') as Record<string, unknown>),
          eventID: ev.EventId,
          eventName: ev.EventName,
          eventSource: ev.EventSource,
          eventTime: ev.EventTime?.toISOString(),
          userIdentity: { arn: ev.Username },
        };
        const change = changeRecord(fromCloudTrailRecord(record));
        return change ? [change] : [];
      }),
    );
  const changes: ChangeReader = {
    recent: async (resource, since, limit) => {
      const f = fault('QueryCommand', faults);
      if (f) throw f;
      return index().recent(resource, since, limit);
    },
  };

  return {
    ec2,
    iam,
    eks,
    changes,
    ecr: () => ecr,
    restore: () => {
      for (const stub of [e, i, k, r]) stub.restore();
    },
  };
}
