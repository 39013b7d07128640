import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, Billing, StreamViewType, TableEncryptionV2, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { PARTITION_KEY, SORT_KEY, TTL_ATTRIBUTE } from '../../lambdas/core/contract/incident-table.js';

/** Name of the attribute that holds each item's expiry (epoch seconds) for DynamoDB TTL. */
export const INCIDENT_TTL_ATTRIBUTE = TTL_ATTRIBUTE;

/** Props of {@link IncidentStore}. */
export interface IncidentStoreProps {
  /**
   * What happens to the table when the stack is deleted.
   * @default RemovalPolicy.RETAIN — the incident history is the audit trail
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * A stream of new items (`NEW_IMAGE`): the notices of chat and paging channels read run and
   * approval rows from it.
   * @default false
   */
  readonly stream?: boolean;
}

/**
 * The incident history and dedupe table: `pk`/`sk` keys, on-demand, encrypted, point-in-time
 * recovery, items expire through TTL on {@link INCIDENT_TTL_ATTRIBUTE}.
 */
export class IncidentStore extends Construct {
  readonly table: TableV2;

  constructor(scope: Construct, id: string, props: IncidentStoreProps = {}) {
    super(scope, id);
    this.table = new TableV2(this, 'Table', {
      partitionKey: { name: PARTITION_KEY, type: AttributeType.STRING },
      sortKey: { name: SORT_KEY, type: AttributeType.STRING },
      billing: Billing.onDemand(),
      encryption: TableEncryptionV2.awsManagedKey(),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: INCIDENT_TTL_ATTRIBUTE,
      // Protection follows the policy: a table meant to be destroyed must be deletable.
      deletionProtection: (props.removalPolicy ?? RemovalPolicy.RETAIN) === RemovalPolicy.RETAIN,
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
      ...(props.stream ? { dynamoStream: StreamViewType.NEW_IMAGE } : {}),
    });
  }
}
