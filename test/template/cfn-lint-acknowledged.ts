/**
 * Every cfn-lint warning the synthesized templates may still raise, each with the reason it stays.
 * This is the one place: the template tier fails on any other warning, on any error, and on an entry
 * here that no template raises any more (a stale acknowledgement).
 */
export const ACKNOWLEDGED_CFN_LINT_WARNINGS: Readonly<Record<string, string>> = {
  W3005:
    'CDK writes an explicit DependsOn on a Lambda function’s role (and the state machine’s) next to the GetAtt of its ARN, so the role’s default policy exists before the function can be invoked; the duplicate ordering is harmless and comes from aws-cdk-lib, not from pod-doctor.',
};
