import {
  GetInstanceProfileCommand,
  GetPolicyCommand,
  GetPolicyVersionCommand,
  GetRolePolicyCommand,
  type IAMClientResolvedConfig,
  type ServiceInputTypes as IamInput,
  type ServiceOutputTypes as IamOutput,
  ListAttachedRolePoliciesCommand,
  ListRolePoliciesCommand,
  NoSuchEntityException,
} from '@aws-sdk/client-iam';
import type { AwsStub } from 'aws-sdk-client-mock';
import type { AccountSnapshot } from './account-snapshot.js';
import type { Answer } from './mock-account-writes.js';
import { meta } from './mock-sdk.js';

export type IamStub = AwsStub<IamInput, IamOutput, IAMClientResolvedConfig>;

/** IAM reads of the recorded account (documents come back URL-encoded, as the real API returns them). */
export function mockIamReads(i: IamStub, account: AccountSnapshot, on: Answer): void {
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
}
