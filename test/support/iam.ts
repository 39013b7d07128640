/** One IAM statement found in a synthesized template, with where it came from. */
export interface FoundStatement {
  readonly logicalId: string;
  readonly Effect: string;
  readonly Action: string[];
  readonly Resource: unknown;
  readonly Condition?: Record<string, unknown>;
}

/** Every statement of every identity policy (AWS::IAM::Policy, ManagedPolicy, Role inline policies). */
export function identityStatements(template: Record<string, unknown>): FoundStatement[] {
  const out: FoundStatement[] = [];
  const resources = (template.Resources ?? {}) as Record<
    string,
    { Type: string; Properties?: Record<string, unknown> }
  >;
  for (const [logicalId, r] of Object.entries(resources)) {
    if (!['AWS::IAM::Policy', 'AWS::IAM::ManagedPolicy', 'AWS::IAM::Role'].includes(r.Type)) continue;
    const p = r.Properties ?? {};
    const docs = [
      p.PolicyDocument,
      ...((p.Policies as { PolicyDocument: unknown }[] | undefined) ?? []).map((x) => x.PolicyDocument),
    ];
    for (const d of docs) {
      for (const s of (d as { Statement?: Record<string, unknown>[] } | undefined)?.Statement ?? []) {
        const action = s.Action as string | string[];
        out.push({
          logicalId,
          Effect: s.Effect as string,
          Action: Array.isArray(action) ? action : [action],
          Resource: s.Resource,
          Condition: s.Condition as Record<string, unknown> | undefined,
        });
      }
    }
  }
  return out;
}
