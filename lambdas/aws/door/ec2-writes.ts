import type * as Sdk from '@aws-sdk/client-ec2';
import { command } from '../ec2/commands.js';

// The EC2 calls that change the account, defined only here: no module outside the door can make
// them (test/infra/door-isolation.test.ts). The reads are in ../ec2/commands.ts.

export class CreateSubnetCidrReservationCommand extends command<
  Sdk.CreateSubnetCidrReservationCommandInput,
  Sdk.CreateSubnetCidrReservationResult
>('CreateSubnetCidrReservation') {}
export class DeleteSubnetCidrReservationCommand extends command<
  Sdk.DeleteSubnetCidrReservationCommandInput,
  Sdk.DeleteSubnetCidrReservationResult
>('DeleteSubnetCidrReservation') {}
export class AuthorizeSecurityGroupIngressCommand extends command<
  Sdk.AuthorizeSecurityGroupIngressCommandInput,
  Sdk.AuthorizeSecurityGroupIngressResult
>('AuthorizeSecurityGroupIngress') {}
export class RevokeSecurityGroupIngressCommand extends command<
  Sdk.RevokeSecurityGroupIngressCommandInput,
  Sdk.RevokeSecurityGroupIngressResult
>('RevokeSecurityGroupIngress') {}
