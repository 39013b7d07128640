import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { type IPrincipal, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { acknowledgeAccessLogBucket } from './nag.js';

/** The feature flag that delivers server access logs through a bucket policy instead of an ACL. */
export const S3_ACCESS_LOGS_USE_BUCKET_POLICY = '@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy';

/** Props of {@link EvidenceBucket}. */
export interface EvidenceBucketProps {
  /** Days evidence objects (log bundles, check results, command outputs, summaries) are kept. */
  readonly retentionDays: number;
  /**
   * What happens to the bucket when the stack is deleted.
   * @default RemovalPolicy.RETAIN — evidence outlives the deployment
   */
  readonly removalPolicy?: RemovalPolicy;
}

/**
 * The S3 bucket that keeps incident evidence: encrypted, TLS only, no public access, versioned,
 * expired after the retention period, with server access logs into a second bucket.
 */
export class EvidenceBucket extends Construct {
  /** Key prefix of the per-incident evidence (summaries, collect-logs bundles). */
  static readonly INCIDENTS_PREFIX = 'incidents/';
  readonly bucket: Bucket;
  private nodeUploads = 0;
  readonly accessLogs: Bucket;

  constructor(scope: Construct, id: string, props: EvidenceBucketProps) {
    super(scope, id);
    // Server access logs are delivered through a bucket policy, not the legacy LogDeliveryWrite ACL
    // (cfn-lint W3045). Set here, before the buckets exist, so embedding apps get it without the flag.
    this.node.setContext(S3_ACCESS_LOGS_USE_BUCKET_POLICY, true);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    this.accessLogs = new Bucket(this, 'AccessLogs', {
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [{ expiration: Duration.days(props.retentionDays) }],
      removalPolicy,
    });
    acknowledgeAccessLogBucket(this.accessLogs);
    this.bucket = new Bucket(this, 'Bucket', {
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      versioned: true,
      serverAccessLogsBucket: this.accessLogs,
      serverAccessLogsPrefix: 'evidence/',
      lifecycleRules: [
        {
          expiration: Duration.days(props.retentionDays),
          noncurrentVersionExpiration: Duration.days(30),
          abortIncompleteMultipartUploadAfter: Duration.days(7),
        },
      ],
      removalPolicy,
    });
  }

  /**
   * Lets a node role upload collect-logs bundles: a bucket policy statement allowing
   * `s3:PutObject` under `incidents/*` only (no read, no list, no other prefix). The bucket policy is
   * enough for a role in this account; a node role in another account also needs the same grant in
   * its own identity policy (S3 evaluates both sides across accounts).
   */
  grantNodeUpload(nodeRole: IPrincipal): PolicyStatement {
    const statement = new PolicyStatement({
      sid: `NodeUpload${this.nodeUploads++}`,
      principals: [nodeRole],
      actions: ['s3:PutObject'],
      resources: [this.bucket.arnForObjects(`${EvidenceBucket.INCIDENTS_PREFIX}*`)],
    });
    this.bucket.addToResourcePolicy(statement);
    return statement;
  }
}
