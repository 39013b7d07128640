import type * as Sdk from '@aws-sdk/client-ec2';

// The EC2 API calls pod-doctor makes, as commands of the lean EC2 Query client (./client.ts). Their
// input and output types are the SDK's own (type imports only: nothing of @aws-sdk/client-ec2 is
// bundled); their class names are the SDK's, so the local runtime and the IAM mapping see the same
// calls as before.

/** One EC2 Query API call: the `Action` and its input, typed by the SDK's input and output shapes. */
export abstract class Ec2Command<I extends object, O extends object> {
  /** The EC2 Query `Action` (kept as data: class names do not survive minification). */
  abstract readonly action: string;
  /** Never set: carries the output type for `send`. */
  declare readonly outputType?: O;
  constructor(readonly input: I) {}
}

/** A command class: `new DescribeInstancesCommand(input)`. */
export type Ec2CommandClass<I extends object, O extends object> = new (input: I) => Ec2Command<I, O>;

type Out<O> = Omit<O, '$metadata'>;

/** A command class for one EC2 Query action (the door defines the mutating ones with it). */
export function command<I extends object, O extends object>(action: string) {
  return class extends Ec2Command<I, Out<O>> {
    static readonly action = action;
    readonly action = action;
  };
}

export class DescribeInstancesCommand extends command<Sdk.DescribeInstancesCommandInput, Sdk.DescribeInstancesResult>(
  'DescribeInstances',
) {}
export class DescribeInstanceTypesCommand extends command<
  Sdk.DescribeInstanceTypesCommandInput,
  Sdk.DescribeInstanceTypesResult
>('DescribeInstanceTypes') {}
export class DescribeNetworkInterfacesCommand extends command<
  Sdk.DescribeNetworkInterfacesCommandInput,
  Sdk.DescribeNetworkInterfacesResult
>('DescribeNetworkInterfaces') {}
export class DescribeRouteTablesCommand extends command<
  Sdk.DescribeRouteTablesCommandInput,
  Sdk.DescribeRouteTablesResult
>('DescribeRouteTables') {}
export class DescribeSecurityGroupsCommand extends command<
  Sdk.DescribeSecurityGroupsCommandInput,
  Sdk.DescribeSecurityGroupsResult
>('DescribeSecurityGroups') {}
export class DescribeSubnetsCommand extends command<Sdk.DescribeSubnetsCommandInput, Sdk.DescribeSubnetsResult>(
  'DescribeSubnets',
) {}
export class DescribeVpcEndpointsCommand extends command<
  Sdk.DescribeVpcEndpointsCommandInput,
  Sdk.DescribeVpcEndpointsResult
>('DescribeVpcEndpoints') {}
export class GetSubnetCidrReservationsCommand extends command<
  Sdk.GetSubnetCidrReservationsCommandInput,
  Sdk.GetSubnetCidrReservationsResult
>('GetSubnetCidrReservations') {}
/** What a caller needs of an EC2 client: `send` (the lean client, or a local double answering the same commands). */
export interface Ec2Client {
  send<I extends object, O extends object>(command: Ec2Command<I, O>): Promise<O>;
}

/** Pages of a NextToken-paged call, like the SDK's `paginate…` helpers. */
async function* pages<I extends { NextToken?: string }, O extends { NextToken?: string }>(
  client: Ec2Client,
  Command: Ec2CommandClass<I, O>,
  input: I,
): AsyncGenerator<O> {
  let token: string | undefined;
  do {
    const page = await client.send(new Command({ ...input, NextToken: token }));
    yield page;
    token = page.NextToken;
  } while (token);
}

export const paginateDescribeInstances = (c: { client: Ec2Client }, input: Sdk.DescribeInstancesCommandInput) =>
  pages(c.client, DescribeInstancesCommand, input);
export const paginateDescribeNetworkInterfaces = (
  c: { client: Ec2Client },
  input: Sdk.DescribeNetworkInterfacesCommandInput,
) => pages(c.client, DescribeNetworkInterfacesCommand, input);
export const paginateDescribeVpcEndpoints = (c: { client: Ec2Client }, input: Sdk.DescribeVpcEndpointsCommandInput) =>
  pages(c.client, DescribeVpcEndpointsCommand, input);
