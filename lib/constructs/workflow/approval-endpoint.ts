import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { type Grant, type IGrantable, Policy, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { type CfnFunction, FunctionUrlAuthType, type IFunction } from 'aws-cdk-lib/aws-lambda';
import { type ISecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { acknowledgeApprovalKey } from '../nag.js';
import { type WorkflowFunctionSettings, workflowFunction } from './workflow-function.js';

/** Concurrent executions reserved for (and capping) the public approval endpoint. */
export const APPROVAL_CONCURRENCY = 5;

/** Props of {@link ApprovalEndpoint}. */
export interface ApprovalEndpointProps extends WorkflowFunctionSettings {
  /** Table holding pending approvals (and their task tokens). */
  readonly incidentTable: ITableV2;
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
    acknowledgeApprovalKey(key);
    this.signingKey = key;
    const callback = workflowFunction(
      this,
      'ApprovalCallbackFunction',
      'approval-callback',
      'approval link endpoint (signed, expiring)',
      props,
      { APPROVAL_SECRET_ARN: key.secretArn },
    );
    // Whoever finds the URL cannot run up the account's Lambda concurrency (or pod-doctor's bill).
    (callback.node.defaultChild as CfnFunction).reservedConcurrentExecutions = APPROVAL_CONCURRENCY;
    key.grantRead(callback);
    props.incidentTable.grant(callback, 'dynamodb:GetItem', 'dynamodb:UpdateItem');
    // Approvers click links in an e-mail: no AWS credentials; the HMAC signature and expiry are the authentication.
    this.url = callback.addFunctionUrl({ authType: FunctionUrlAuthType.NONE }).url;
    this.callbackFunction = callback;
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
