import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, LoggingFormat, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, type NodejsFunctionProps, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { acknowledgeFunction } from './nag.js';

/** Props of {@link PodDoctorFunction}. */
export interface PodDoctorFunctionProps
  extends Omit<NodejsFunctionProps, 'runtime' | 'architecture' | 'tracing' | 'logGroup' | 'role' | 'entry'> {
  /** Path of the handler module (TypeScript), bundled with esbuild. */
  readonly entry: string;
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
 * into an explicit log group with retention, ESM bundle with minify and source maps.
 */
export class PodDoctorFunction extends NodejsFunction {
  constructor(scope: Construct, id: string, props: PodDoctorFunctionProps) {
    const { logRetention, logRemovalPolicy, synchronousOnly, ...functionProps } = props;
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
      role,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      tracing: Tracing.ACTIVE,
      logGroup,
      loggingFormat: LoggingFormat.JSON,
      environment: {
        POWERTOOLS_SERVICE_NAME: 'pod-doctor',
        POWERTOOLS_METRICS_NAMESPACE: 'PodDoctor',
        NODE_OPTIONS: '--enable-source-maps',
        ...props.environment,
      },
      bundling: {
        format: OutputFormat.ESM,
        minify: true,
        sourceMap: true,
        target: 'node22',
        mainFields: ['module', 'main'],
        // Some dependencies (X-Ray SDK) still call require(); give the ESM bundle one.
        banner: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
        ...props.bundling,
      },
    });
    this.logGroupName = logGroup.logGroupName;
    acknowledgeFunction(this, role, synchronousOnly ?? false);
  }

  /** Name of the function's own log group. */
  readonly logGroupName: string;
}
