import { Duration } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { type Grant, type IGrantable, Policy, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { type CfnFunction, FunctionUrlAuthType, type IFunction } from 'aws-cdk-lib/aws-lambda';
import { type ISecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { acknowledgeKeyRotation } from '../nag.js';
import { lambdaEntry } from '../paths.js';
import { PodDoctorFunction } from '../pod-doctor-function.js';
import { grantRowWrites } from '../table-rows.js';
import { type WorkflowFunctionSettings, workflowFunction } from './workflow-function.js';

/** How often the approval signing key rotates: longer than the longest approval timeout (7 days). */
export const KEY_ROTATION_INTERVAL = Duration.days(30);

/** Props of {@link ApprovalEndpoint}. */
export interface ApprovalEndpointProps extends WorkflowFunctionSettings {
  /** Table holding pending approvals (and their task tokens). */
  readonly incidentTable: ITableV2;
  /**
   * Concurrent executions reserved for (and capping) the endpoint, and why the account can afford
   * them; recorded in the template (metadata `PodDoctorReservedConcurrency`).
   * @default - none: a new account (concurrency quota 10) refuses any reservation
   */
  readonly reservedConcurrency?: { readonly executions: number; readonly reason: string };
}

/**
 * Where approve / reject links point: a Lambda function URL that accepts only HMAC-signed,
 * expiring, single-use links, and the Secrets Manager key that signs them.
 */
export class ApprovalEndpoint extends Construct {
  /** The HMAC key that signs approval links. */
  readonly signingKey: ISecret;
  /** The function behind the URL. */
  readonly callbackFunction: IFunction;
  /** URL of the endpoint (the links' base). */
  readonly url: string;

  constructor(scope: Construct, id: string, props: ApprovalEndpointProps) {
    super(scope, id);
    const key = new Secret(this, 'ApprovalKey', {
      description: 'pod-doctor: HMAC key that signs approval links',
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
    });
    this.signingKey = key;
    this.rotateKey(key, props);
    const callback = workflowFunction(
      this,
      'ApprovalCallbackFunction',
      'approval-callback',
      'approval link endpoint (signed, expiring)',
      props,
      { APPROVAL_SECRET_ARN: key.secretArn },
    );
    // A page or a decision takes one DynamoDB read and one Step Functions call: a short timeout
    // bounds what each request to a public URL can cost.
    (callback.node.defaultChild as CfnFunction).timeout = 10;
    // Opt-in only: Lambda keeps 10 executions of the account unreserved, so a new account refuses any
    // reservation. Without one, requests that cannot be a valid link are refused before any AWS call.
    if (props.reservedConcurrency) {
      const cfn = callback.node.defaultChild as CfnFunction;
      cfn.reservedConcurrentExecutions = props.reservedConcurrency.executions;
      cfn.addMetadata('PodDoctorReservedConcurrency', props.reservedConcurrency.reason);
    }
    key.grantRead(callback);
    props.incidentTable.grant(callback, 'dynamodb:GetItem');
    // Internet-facing: it writes the grant of an approved request's digest (which the door reads) and
    // marks its approval answered; no other row.
    grantRowWrites(props.incidentTable, callback, ['grants'], ['dynamodb:PutItem']);
    grantRowWrites(props.incidentTable, callback, ['approvals'], ['dynamodb:UpdateItem']);
    // Approvers click links in an e-mail: no AWS credentials; the HMAC signature and expiry are the authentication.
    this.url = callback.addFunctionUrl({ authType: FunctionUrlAuthType.NONE }).url;
    this.callbackFunction = callback;
  }

  /**
   * Rotates the key every {@link KEY_ROTATION_INTERVAL} (Secrets Manager rotation, the
   * approval-key-rotation function). The endpoint verifies with the current key and the one before
   * it, so an approval pending across one rotation stays answerable: the interval exceeds the longest
   * approval timeout (7 days).
   */
  private rotateKey(key: Secret, props: ApprovalEndpointProps): void {
    const rotation = new PodDoctorFunction(this, 'KeyRotationFunction', {
      entry: lambdaEntry('approval-key-rotation'),
      description: 'pod-doctor: rotate the approval link signing key (Secrets Manager rotation)',
      logRetention: props.logRetention,
      timeout: Duration.seconds(30),
      // Secrets Manager invokes each step and retries it; there is nothing to dead-letter.
      synchronousOnly: true,
    });
    key.addRotationSchedule('Rotation', { rotationLambda: rotation, automaticallyAfter: KEY_ROTATION_INTERVAL });
    acknowledgeKeyRotation(rotation);
  }

  /**
   * Lets the callback answer the tasks of `stateMachine` (states:SendTaskSuccess/Failure on that
   * state machine: Step Functions authorises a task token against the state machine it belongs to).
   */
  grantResume(stateMachine: IStateMachine): Policy {
    // A policy of its own, not the function's default policy: the function must not depend on the
    // state machine, which depends (through the approval request function) on this function's URL.
    const role = this.callbackFunction.role;
    if (!role) throw new Error('the approval callback function has no role');
    return new Policy(this, 'ResumePolicy', {
      roles: [role],
      statements: [
        new PolicyStatement({
          actions: ['states:SendTaskSuccess', 'states:SendTaskFailure'],
          resources: [stateMachine.stateMachineArn],
        }),
      ],
    });
  }

  /** Lets `grantee` sign links (read the key). */
  grantSign(grantee: IGrantable): Grant {
    return this.signingKey.grantRead(grantee);
  }

  /** Environment a function that signs links needs. */
  get signingEnvironment(): Record<string, string> {
    return { APPROVAL_SECRET_ARN: this.signingKey.secretArn, CALLBACK_URL: this.url };
  }
}
