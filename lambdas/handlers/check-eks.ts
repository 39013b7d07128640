import { EKSClient } from '@aws-sdk/client-eks';
import { runEksGroup } from '../aws/checks/eks-group.js';
import { checkHandler, sdkClient } from '../aws/checks/handler-kit.js';
import { Ec2QueryClient } from '../aws/ec2/client.js';

/** Account checks, group "eks": EKS (add-ons, node group AMI) and EC2 (instance type ENI limits). */
export const handler = checkHandler('eks', runEksGroup, { eks: sdkClient(EKSClient), ec2: new Ec2QueryClient() });
