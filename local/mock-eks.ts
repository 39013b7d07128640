import {
  DescribeAccessEntryCommand,
  DescribeAddonCommand,
  DescribeAddonVersionsCommand,
  DescribeClusterCommand,
  DescribeNodegroupCommand,
  DescribePodIdentityAssociationCommand,
  type EKSClientResolvedConfig,
  type ServiceInputTypes as EksInput,
  type ServiceOutputTypes as EksOutput,
  ListAccessEntriesCommand,
  ListNodegroupsCommand,
  ListPodIdentityAssociationsCommand,
  ResourceNotFoundException,
} from '@aws-sdk/client-eks';
import type { AwsStub } from 'aws-sdk-client-mock';
import type { AccountSnapshot } from './account-snapshot.js';
import type { Answer } from './mock-account-writes.js';
import { settled } from './mock-eks-addon.js';
import { meta } from './mock-sdk.js';

export type EksStub = AwsStub<EksInput, EksOutput, EKSClientResolvedConfig>;

/** EKS reads of the recorded account: cluster, add-ons, node groups, access entries, Pod Identity. */
export function mockEksReads(k: EksStub, account: AccountSnapshot, on: Answer): void {
  const notFound = (what: string) =>
    new ResourceNotFoundException({ message: `No ${what} found for name: x`, $metadata: meta(404) });
  // EKS answers ResourceNotFoundException for a name the account does not have, as the API does.
  k.on(DescribeClusterCommand).callsFake(
    on('DescribeClusterCommand', (input: { name?: string }) => {
      if (input.name !== account.cluster.name)
        throw new ResourceNotFoundException({
          message: `No cluster found for name: ${input.name}.`,
          $metadata: meta(404),
        });
      return { cluster: account.cluster };
    }),
  );
  k.on(DescribeAddonCommand).callsFake(
    on('DescribeAddonCommand', (input: { addonName?: string }) => {
      const a = account.addons.find((x) => x.addonName === input.addonName);
      if (!a) throw notFound('addon');
      return { addon: settled(a) };
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
}
