import { ECRClient } from '@aws-sdk/client-ecr';
import { EKSClient } from '@aws-sdk/client-eks';
import { IAMClient } from '@aws-sdk/client-iam';
import { perRegion, sdkClient } from '../aws/checks/handler-kit.js';
import { Ec2QueryClient } from '../aws/ec2/client.js';
import { logger, withPowertools } from '../aws/powertools.js';
import { type RemedyDeps, remedy, remedyInputSchema } from '../aws/remedy/service.js';
import { workflowConfig } from '../aws/workflow/runtime.js';

/** Workflow steps "Prepare remedy" (re-check and dry-run diff) and "Apply remedy" (change, verify, roll back). */
export const createHandler = (deps: () => Promise<RemedyDeps>) =>
  withPowertools(remedyInputSchema, async (input) => {
    const record = await remedy(input, await deps());
    logger.info('remedy', { remedy: record.remedy, status: record.status, reason: record.reason });
    return record;
  });

// The remedies change and re-check IAM (policy attachments), EC2 (security group rules, CIDR
// reservations), ECR (the Docker Hub pull-through cache rule) and read EKS (the role aws-node
// uses): those clients and no others.
const clients = {
  iam: sdkClient(IAMClient),
  eks: sdkClient(EKSClient),
  ec2: new Ec2QueryClient(),
  ecr: perRegion((region) => sdkClient(ECRClient, region)),
};

export const handler = createHandler(async () => ({ clients, config: await workflowConfig(), now: Date.now }));
