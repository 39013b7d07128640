import { type IAspect, Stack } from 'aws-cdk-lib';
import { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import type { IConstruct } from 'constructs';

/** Lambda's limit on a function's environment: keys and values together, 4 KB. */
export const LAMBDA_ENVIRONMENT_LIMIT = 4096;

/**
 * The length, in bytes, a synthesized CloudFormation value has once CloudFormation resolves it:
 * literals as they are, references at the length of what they stand for — an `Arn` attribute 100
 * characters, any other attribute 70, a resource `Ref` (a generated name) 60, a pseudo parameter 14
 * (`AWS::Region` at its longest). Deliberately long, so that a value that fits here fits deployed.
 */
export function resolvedLength(v: unknown): number {
  if (typeof v === 'string') return Buffer.byteLength(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v).length;
  if (Array.isArray(v)) return v.reduce((n: number, x) => n + resolvedLength(x), 0);
  if (v === null || typeof v !== 'object') return 0;
  const o = v as Record<string, unknown>;
  if ('Fn::Join' in o) {
    const [sep, parts] = o['Fn::Join'] as [string, unknown[]];
    return parts.reduce((n: number, p) => n + resolvedLength(p), 0) + sep.length * Math.max(0, parts.length - 1);
  }
  if ('Fn::GetAtt' in o) {
    const a = o['Fn::GetAtt'];
    const attr = Array.isArray(a) ? String(a[1]) : String(a).split('.').pop();
    return attr?.includes('Arn') ? 100 : 70;
  }
  if ('Ref' in o) return String(o.Ref).startsWith('AWS::') ? 14 : 60;
  if ('Fn::Sub' in o) {
    const s = String(Array.isArray(o['Fn::Sub']) ? o['Fn::Sub'][0] : o['Fn::Sub']);
    return s.length + 60 * (s.split('${').length - 1);
  }
  if ('Fn::ImportValue' in o) return 100;
  return JSON.stringify(o).length;
}

/** A function's environment is over Lambda's 4 KB (the deployment would fail at function creation). */
export function environmentProblem(path: string, variables: Record<string, unknown>): string | undefined {
  const sizes = Object.entries(variables).map(([k, v]) => ({ k, n: Buffer.byteLength(k) + resolvedLength(v) }));
  const total = sizes.reduce((n, s) => n + s.n, 0);
  if (total <= LAMBDA_ENVIRONMENT_LIMIT) return undefined;
  const largest = sizes
    .sort((a, b) => b.n - a.n)
    .slice(0, 3)
    .map((s) => `${s.k} ~${s.n} B`)
    .join(', ');
  return `pod-doctor: the environment of function ${path} is ~${total} bytes with references counted at their resolved length; Lambda refuses more than ${LAMBDA_ENVIRONMENT_LIMIT} bytes when it creates the function (largest: ${largest}). Put large values in the configuration store (lib/constructs/config-store.ts), not in the environment.`;
}

/**
 * Refuses at synth every Lambda function in its scope whose environment would exceed Lambda's 4 KB
 * once deployed, naming the function and its largest variables.
 */
export class EnvironmentSizeCheck implements IAspect {
  visit(node: IConstruct): void {
    if (!(node instanceof CfnFunction)) return;
    node.node.addValidation({
      validate: () => {
        // The L1 property as set (camelCase `variables`), references as CloudFormation intrinsics.
        const env = Stack.of(node).resolve(node.environment) as { variables?: Record<string, unknown> } | undefined;
        const problem = environmentProblem(node.node.scope?.node.path ?? node.node.path, env?.variables ?? {});
        return problem ? [problem] : [];
      },
    });
  }
}
