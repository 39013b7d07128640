import { EKSClient } from '@aws-sdk/client-eks';
import { IAMClient } from '@aws-sdk/client-iam';
import { checkHandler, sdkClient } from '../aws/checks/handler-kit.js';
import { runIamGroup } from '../aws/checks/iam-group.js';

/** Account checks, group "iam": IAM (role policies) and EKS (the role aws-node uses). */
export const handler = checkHandler('iam', runIamGroup, { iam: sdkClient(IAMClient), eks: sdkClient(EKSClient) });
