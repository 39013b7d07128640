import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { AnyPrincipal, Effect, type IPrincipal, PolicyStatement } from 'aws-cdk-lib/aws-iam';
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
 * expired after the retention period, with server access logs into a second bucket. Append-only for
 * everyone: its policy refuses every object write without `If-None-Match: *` (a write that would
 * replace an object), whoever makes it; pod-doctor writes summaries under `incidents/`, rejected and
 * dropped records under `rejected/` and `dropped/`, and a node only under its own
 * `nodes/<aws:userid>/` (its role id and instance id, which it cannot choose).
 */
export class EvidenceBucket extends Construct {
  /** Key prefix of the per-incident evidence pod-doctor writes (summaries). */
  static readonly INCIDENTS_PREFIX = 'incidents/';
  /**
   * Key prefix of node uploads (collect-logs bundles): `nodes/${aws:userid}/…`, where `aws:userid` of an
   * EC2 instance's role session is `<role id>:<instance id>`
   * (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_variables.html#principaltable).
   */
  // biome-ignore lint/suspicious/noTemplateCurlyInString: an IAM policy variable, resolved by IAM, not a template
  static readonly NODE_UPLOADS = 'nodes/${aws:userid}/*';
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
    this.bucket.addToResourcePolicy(
      new PolicyStatement({
        sid: 'CreateOnlyNoOverwrite',
        effect: Effect.DENY,
        principals: [new AnyPrincipal()],
        actions: ['s3:PutObject'],
        resources: [this.bucket.arnForObjects('*')],
        // Every PutObject, CopyObject and CompleteMultipartUpload must be conditional on the key not
        // existing; the parts of a multipart upload carry no such header and are not object creations.
        // https://docs.aws.amazon.com/AmazonS3/latest/userguide/conditional-writes-enforce.html
        conditions: { Null: { 's3:if-none-match': 'true' }, Bool: { 's3:ObjectCreationOperation': 'true' } },
      }),
    );
  }

  /**
   * Lets a node role upload collect-logs bundles: a bucket policy statement allowing `s3:PutObject`
   * under the node's own `nodes/${aws:userid}/` only (no read, no list, no other node's or incident's
   * prefix, no overwrite). The bucket policy is enough for a role in this account; a node role in another
   * account also needs the same grant in its own identity policy (S3 evaluates both sides across accounts).
   */
  grantNodeUpload(nodeRole: IPrincipal): PolicyStatement {
    const statement = new PolicyStatement({
      sid: `NodeUpload${this.nodeUploads++}`,
      principals: [nodeRole],
      actions: ['s3:PutObject'],
      resources: [this.bucket.arnForObjects(EvidenceBucket.NODE_UPLOADS)],
    });
    this.bucket.addToResourcePolicy(statement);
    return statement;
  }
}
