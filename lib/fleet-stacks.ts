import { CfnOutput, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { OrganizationPrincipal, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { BlockPublicAccess, Bucket, BucketEncryption, type IBucket } from 'aws-cdk-lib/aws-s3';
import { Capability, DeploymentType, StackSet, StackSetStack, StackSetTarget, StackSetTemplate } from 'cdk-stacksets';
import type { Construct } from 'constructs';
import { acknowledgeAssetDeployment, acknowledgeSpokeAssets } from './constructs/nag.js';
import { PodDoctorHub, type PodDoctorHubProps } from './pod-doctor-hub.js';
import { PodDoctorSpoke, type PodDoctorSpokeProps } from './pod-doctor-spoke.js';

/** The hub in its own stack (one account, one home Region), with the outputs spokes need. */
export class PodDoctorHubStack extends Stack {
  /** The hub this stack holds. */
  readonly hub: PodDoctorHub;

  constructor(scope: Construct, id: string, props: StackProps & { readonly hub: PodDoctorHubProps }) {
    super(scope, id, props);
    this.hub = new PodDoctorHub(this, 'Hub', props.hub);
    new CfnOutput(this, 'FleetBusArn', { value: this.hub.bus.eventBusArn, description: 'hubBusArn of every spoke' });
    new CfnOutput(this, 'StateMachineArn', { value: this.hub.podDoctor.stateMachine.stateMachineArn });
  }
}

/** One spoke (one member account and Region) as a plain stack: the CDK multi-stage way. */
export class PodDoctorSpokeStack extends Stack {
  /** The spoke this stack holds. */
  readonly spoke: PodDoctorSpoke;

  constructor(scope: Construct, id: string, props: StackProps & { readonly spoke: PodDoctorSpokeProps }) {
    super(scope, id, props);
    this.spoke = new PodDoctorSpoke(this, 'Spoke', props.spoke);
  }
}

/** The StackSet template of the spokes: environment-agnostic, its Region from the instance. */
class SpokeTemplate extends StackSetStack {
  constructor(
    scope: Construct,
    id: string,
    props: PodDoctorSpokeProps & { readonly assetBuckets: IBucket[]; readonly assetBucketPrefix: string },
  ) {
    const { assetBuckets, assetBucketPrefix, ...spoke } = props;
    super(scope, id, { assetBuckets, assetBucketPrefix });
    new PodDoctorSpoke(this, 'Spoke', spoke);
  }
}

/** Props of {@link PodDoctorSpokeStackSet}. */
export interface PodDoctorSpokeStackSetProps extends StackProps {
  /** What every spoke is (clusters are per account: a StackSet spoke forwards CloudTrail events, subscribes none). */
  readonly spoke: Omit<PodDoctorSpokeProps, 'clusters'>;
  /** Organizational units whose accounts (present and future) get a spoke. */
  readonly organizationalUnits: readonly string[];
  /** Regions each account gets a spoke in. */
  readonly regions: readonly string[];
  /**
   * Name prefix of the buckets holding the spoke's Lambda code, one per Region of `regions`, each named
   * `${assetBucketPrefix}-${region}` and readable by the organization ({@link PodDoctorSpokeAssetsStack}).
   */
  readonly assetBucketPrefix: string;
}

/**
 * The spokes as a service-managed StackSet with automatic deployment to organizational units: an
 * account that joins the OU gets its spokes, one that leaves has them deleted. Deployed from the
 * management account or a delegated administrator (`callAs: DELEGATED_ADMIN`).
 */
export class PodDoctorSpokeStackSet extends Stack {
  constructor(scope: Construct, id: string, props: PodDoctorSpokeStackSetProps) {
    super(scope, id, props);
    // By name, not by reference: the buckets live in other Regions' stacks.
    const assetBuckets = props.regions.map((region) =>
      Bucket.fromBucketAttributes(this, `Assets-${region}`, {
        bucketName: `${props.assetBucketPrefix}-${region}`,
        region,
      }),
    );
    const template = new SpokeTemplate(this, 'SpokeTemplate', {
      ...props.spoke,
      assetBuckets,
      assetBucketPrefix: props.assetBucketPrefix,
    });
    new StackSet(this, 'Spokes', {
      target: StackSetTarget.fromOrganizationalUnits({
        regions: [...props.regions],
        organizationalUnits: [...props.organizationalUnits],
      }),
      template: StackSetTemplate.fromStackSetStack(template),
      capabilities: [Capability.NAMED_IAM],
      managedExecution: true,
      deploymentType: DeploymentType.serviceManaged({
        delegatedAdmin: true,
        autoDeployEnabled: true,
        autoDeployRetainStacks: false,
      }),
    });
    acknowledgeAssetDeployment(this);
  }
}

/**
 * The org-readable bucket of one Region that holds the spoke StackSet's Lambda code. Its name is
 * fixed by design (`${prefix}-${region}`): every StackSet instance finds its Region's copy by it.
 */
export class PodDoctorSpokeAssetsStack extends Stack {
  /** The bucket of this Region's copy of the spoke's file assets. */
  readonly bucket: IBucket;

  constructor(
    scope: Construct,
    id: string,
    props: StackProps & { readonly prefix: string; readonly organizationId: string },
  ) {
    super(scope, id, props);
    const bucket = new Bucket(this, 'Assets', {
      bucketName: `${props.prefix}-${this.region}`,
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      versioned: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    bucket.addToResourcePolicy(
      new PolicyStatement({
        actions: ['s3:GetObject'],
        resources: [bucket.arnForObjects('*')],
        principals: [new OrganizationPrincipal(props.organizationId)],
      }),
    );
    acknowledgeSpokeAssets(bucket);
    this.bucket = bucket;
  }
}
