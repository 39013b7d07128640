import { dirname } from 'node:path';
import { AssetHashType, DockerImage, Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
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
import { METRICS_NAMESPACE, SERVICE_NAME } from '../../lambdas/core/metric-names.js';
import { BUNDLE_FILE, bundleHandler } from './bundling.js';
import { acknowledgeFunction } from './nag.js';
import { type HandlerEntry, RUNNING_COMPILED } from './paths.js';

/** The CloudWatch namespace of pod-doctor's own metrics (Powertools Metrics in every function). */
export { METRICS_NAMESPACE } from '../../lambdas/core/metric-names.js';
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
    const role = new Role(logScope, 'Role', {
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
