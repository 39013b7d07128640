import { dirname } from 'node:path';
import { AssetHashType, DockerImage, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { type AddToPrincipalPolicyResult, type PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  Architecture,
  type CfnFunction,
  Code,
  type FunctionOptions,
  Function as LambdaFunction,
  LoggingFormat,
  Runtime,
  Tracing,
} from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { environmentProblems } from '../../lambdas/core/contract/handler-environment.js';
import { METRICS_NAMESPACE, SERVICE_NAME } from '../../lambdas/core/contract/metric-names.js';
import { BUNDLE_FILE, bundleHandler } from './bundling.js';
import { acknowledgeFunction } from './nag.js';
import { type HandlerEntry, RUNNING_COMPILED } from './paths.js';

/** The CloudWatch namespace of pod-doctor's own metrics (Powertools Metrics in every function). */
export { METRICS_NAMESPACE } from '../../lambdas/core/contract/metric-names.js';
/** The `service` dimension Powertools adds to each of them. */
export const METRICS_SERVICE = SERVICE_NAME;

/** Props of {@link PodDoctorFunction}. */
export interface PodDoctorFunctionProps
  extends Omit<FunctionOptions, 'architecture' | 'tracing' | 'logGroup' | 'role' | 'logRetention'> {
  /** The handler (see `lambdaEntry`). */
  readonly entry: HandlerEntry;
  /** Retention of the function's log group. */
  readonly logRetention: RetentionDays;
  /**
   * Removal policy of the function's log group.
   * @default RemovalPolicy.RETAIN — logs are part of the audit trail
   */
  readonly logRemovalPolicy?: RemovalPolicy;
  /**
   * The function is only invoked synchronously (by Step Functions tasks, which retry and catch
   * errors themselves), so a dead-letter queue would never receive anything.
   * @default false
   */
  readonly synchronousOnly?: boolean;
}

/**
 * The one way pod-doctor builds a Lambda function: Node.js 22 on ARM64, X-Ray tracing, JSON logs
 * into an explicit log group with retention, one ESM bundle with a source map. Installed (compiled)
 * code uses the bundles `npm run build` shipped in the package; from TypeScript sources the handler
 * is bundled at synth with the same options.
 */
export class PodDoctorFunction extends LambdaFunction {
  /** Name of the function's own log group. */
  readonly logGroupName: string;

  constructor(scope: Construct, id: string, props: PodDoctorFunctionProps) {
    const { logRetention, logRemovalPolicy, synchronousOnly, entry, ...functionProps } = props;
    const logScope = new Construct(scope, `${id}Logs`);
    const logGroup = new LogGroup(logScope, 'LogGroup', {
      retention: logRetention,
      removalPolicy: logRemovalPolicy ?? RemovalPolicy.RETAIN,
    });
    // An own role (instead of the default one with AWSLambdaBasicExecutionRole) so the function can
    // only write to its own log group.
    const role = new ChunkedStatementsRole(logScope, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `pod-doctor ${id} function`,
    });
    logGroup.grantWrite(role);
    super(scope, id, {
      memorySize: 256,
      timeout: Duration.seconds(30),
      ...functionProps,
      code: handlerCode(entry),
      handler: 'index.handler',
      role,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      tracing: Tracing.ACTIVE,
      logGroup,
      loggingFormat: LoggingFormat.JSON,
      environment: {
        POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
        POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
        NODE_OPTIONS: '--enable-source-maps',
        ...props.environment,
      },
    });
    this.logGroupName = logGroup.logGroupName;
    // Which handler of lambdas/handlers/ runs here, for readers of the template (and the bundle tests).
    (this.node.defaultChild as CfnFunction).addMetadata('PodDoctorHandler', entry.name);
    acknowledgeFunction(this, role, synchronousOnly ?? false);
    this.node.addValidation({ validate: () => this.environmentProblems(entry.name) });
  }

  /**
   * The function's variables, as every construct added them, against its handler's schema
   * (lambdas/core/contract/handler-environment.ts), which the handler parses at start-up: a variable
   * the handler requires and nobody set, or one set that it never reads, refuses the synth.
   */
  private environmentProblems(handler: string): string[] {
    const cfn = this.node.defaultChild as CfnFunction;
    const env = Stack.of(this).resolve(cfn.environment) as { variables?: Record<string, unknown> } | undefined;
    return environmentProblems(handler, Object.keys(env?.variables ?? {})).map(
      (p) => `pod-doctor: function ${this.node.path}: ${p}`,
    );
  }
}

/** The CDK context key of the size it assumes for an ARN that holds a token when it splits policies. */
const ARN_SIZE_ESTIMATE_CONTEXT = '@aws-cdk/aws-iam.arnSizeEstimate';

/**
 * The ARN size pod-doctor's policies are split with: its ARNs hold only pseudo parameters (partition,
 * Region, account) or generated names, 60-100 characters resolved, where the CDK assumes 150 and so
 * fills managed policies two-thirds: measured, the door's role then needs 15 managed policies at 50
 * clusters instead of 10 (IAM's default quota). An app that sets the context keeps its own value.
 */
export const POLICY_ARN_SIZE_ESTIMATE = 100;

/** Sets {@link POLICY_ARN_SIZE_ESTIMATE} on `scope` (before it has children) unless the app set one. */
export function estimatePolicyArnSize(scope: Construct): void {
  if (scope.node.tryGetContext(ARN_SIZE_ESTIMATE_CONTEXT) === undefined) {
    scope.node.setContext(ARN_SIZE_ESTIMATE_CONTEXT, POLICY_ARN_SIZE_ESTIMATE);
  }
}

/** Most resources one statement keeps before it is added as several (see {@link ChunkedStatementsRole}). */
export const RESOURCES_PER_STATEMENT = 10;

/**
 * A function role that adds a statement naming more than {@link RESOURCES_PER_STATEMENT} resources
 * as several statements of at most that many (same actions, same conditions). The CDK's policy
 * minimization (`@aws-cdk/aws-iam:minimizePolicies`) merges statements again only up to its
 * 2,000-character bound when a role outgrows IAM's 10,240 inline characters, and spreads them over
 * managed policies of at most 6,144 characters; one statement listing every cluster's ARNs cannot be
 * spread: measured, it passes a managed policy's 6,144 characters at ~29 clusters (two ARNs per log
 * group) to ~70 (one ARN per cluster). Least privilege is unchanged: the same actions on the same
 * resources. A statement with a Sid or NotResource is kept whole (a Sid must stay unique).
 */
class ChunkedStatementsRole extends Role {
  override addToPrincipalPolicy(statement: PolicyStatement): AddToPrincipalPolicyResult {
    const resources = statement.resources;
    if (resources.length <= RESOURCES_PER_STATEMENT || statement.sid || statement.notResources.length > 0) {
      return super.addToPrincipalPolicy(statement);
    }
    const results: AddToPrincipalPolicyResult[] = [];
    for (let i = 0; i < resources.length; i += RESOURCES_PER_STATEMENT) {
      const chunk = statement.copy({ resources: resources.slice(i, i + RESOURCES_PER_STATEMENT) });
      results.push(super.addToPrincipalPolicy(chunk));
    }
    return { statementAdded: results.every((r) => r.statementAdded), policyDependable: results[0].policyDependable };
  }
}

/** The pre-bundled asset when running compiled; otherwise the handler bundled at synth (local esbuild). */
function handlerCode(entry: HandlerEntry): Code {
  if (RUNNING_COMPILED) return Code.fromAsset(entry.prebuilt);
  return Code.fromAsset(dirname(entry.source), {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Only used if local bundling declined, which it never does: it bundles or throws.
      image: DockerImage.fromRegistry('public.ecr.aws/sam/build-nodejs22.x'),
      command: ['esbuild', entry.name, BUNDLE_FILE],
      local: {
        tryBundle(outputDir: string): boolean {
          bundleHandler(entry.source, outputDir);
          return true;
        },
      },
    },
  });
}
