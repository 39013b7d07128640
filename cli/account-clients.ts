import { CloudTrailClient } from '@aws-sdk/client-cloudtrail';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ECRClient } from '@aws-sdk/client-ecr';
import { EKSClient } from '@aws-sdk/client-eks';
import { IAMClient } from '@aws-sdk/client-iam';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { Ec2QueryClient } from '../lambdas/aws/ec2/client.js';
import { ChangeIndex } from '../lambdas/aws/readers/account/change-index.js';
import type { CheckClients } from '../lambdas/aws/readers/account/check-input.js';
import { perRegion, sdkClient } from '../lambdas/aws/runtime/sdk-client.js';
import { cloudTrailChangeReader } from './cloudtrail-changes.js';

/**
 * Every client the checks use, each created on first use (the CLI runs all check groups in one
 * process). The Lambda functions never import this: each creates only its own clients.
 */
export function accountClients(): CheckClients {
  let ec2: Ec2QueryClient | undefined;
  let iam: IAMClient | undefined;
  let eks: EKSClient | undefined;
  let changes: ChangeIndex | undefined;
  const ecr = perRegion((region) => sdkClient(ECRClient, region));
  return {
    get ec2() {
      // The SDK's region and credential chain (profiles, SSO …), as the EKS client resolves them.
      const { config } = this.eks;
      ec2 ??= new Ec2QueryClient({ region: () => config.region(), credentials: () => config.credentials() });
      return ec2;
    },
    get iam() {
      iam ??= sdkClient(IAMClient);
      return iam;
    },
    get eks() {
      eks ??= sdkClient(EKSClient);
      return eks;
    },
    get changes() {
      changes ??= new ChangeIndex(
        DynamoDBDocumentClient.from(sdkClient(DynamoDBClient)),
        process.env.CHANGE_TABLE_NAME ?? '',
      );
      return changes;
    },
    ecr,
  };
}

/**
 * The checks' clients as the CLI runs them against an account (`diagnose`, `mcp`): the account's own,
 * and recent changes from CloudTrail, a page per resource (no deployed change index to read).
 */
export function cliCheckClients(): CheckClients {
  const base = accountClients();
  const changes = cloudTrailChangeReader(new CloudTrailClient({ maxAttempts: 6 }));
  return {
    get ec2() {
      return base.ec2;
    },
    get iam() {
      return base.iam;
    },
    get eks() {
      return base.eks;
    },
    ecr: (r) => base.ecr(r),
    changes,
  };
}
