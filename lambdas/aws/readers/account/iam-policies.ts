import {
  GetPolicyCommand,
  GetPolicyVersionCommand,
  GetRolePolicyCommand,
  type IAMClient,
  paginateListAttachedRolePolicies,
  paginateListRolePolicies,
} from '@aws-sdk/client-iam';
import type { NamedPolicy, PolicyDocument } from '../../../core/policy/iam-policy.js';

/** IAM returns policy documents URL-encoded. */
function decode(doc: string | undefined): PolicyDocument {
  return JSON.parse(decodeURIComponent(doc ?? '{"Statement":[]}')) as PolicyDocument;
}

/** Every identity policy of a role: attached managed policies (default version) and inline policies. */
export async function rolePolicies(iam: IAMClient, roleName: string): Promise<NamedPolicy[]> {
  const out: NamedPolicy[] = [];
  for await (const page of paginateListAttachedRolePolicies({ client: iam }, { RoleName: roleName })) {
    for (const p of page.AttachedPolicies ?? []) {
      const policy = await iam.send(new GetPolicyCommand({ PolicyArn: p.PolicyArn }));
      const version = await iam.send(
        new GetPolicyVersionCommand({ PolicyArn: p.PolicyArn, VersionId: policy.Policy?.DefaultVersionId }),
      );
      out.push({ name: p.PolicyName ?? p.PolicyArn ?? 'managed', document: decode(version.PolicyVersion?.Document) });
    }
  }
  for await (const page of paginateListRolePolicies({ client: iam }, { RoleName: roleName })) {
    for (const name of page.PolicyNames ?? []) {
      const p = await iam.send(new GetRolePolicyCommand({ RoleName: roleName, PolicyName: name }));
      out.push({ name: `inline:${name}`, document: decode(p.PolicyDocument) });
    }
  }
  return out;
}
