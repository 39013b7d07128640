import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import * as Sdk from '@aws-sdk/client-ec2';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as Writes from '../../lambdas/aws/door/ec2-writes.js';
import * as Lean from '../../lambdas/aws/ec2/client.js';
import { healthyAccount, NODE_SG, SUBNET, VPC } from '../../local/account-snapshot.js';
import { readyPreflightAccount } from '../../local/preflight-account.js';
import { ec2ErrorXml, ec2ResponseXml } from '../support/ec2-xml.js';

/**
 * The lean EC2 Query client against @aws-sdk/client-ec2 itself: for every call pod-doctor makes, the
 * same form parameters and signature on the wire, the same output parsed from the same XML answer
 * (the recorded account's objects), the same error names, and retries on EC2 throttling.
 */
const CREDENTIALS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
const REGION = 'eu-west-1';

interface Sent {
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** The SDK's client with a transport that records the request and answers `answer`. */
function sdkClient(answer: { status: number; body: string }, sent: Sent[]) {
  return new Sdk.EC2Client({
    region: REGION,
    credentials: CREDENTIALS,
    maxAttempts: 1,
    requestHandler: {
      handle: async (req: { headers: Record<string, string>; body: string }) => {
        sent.push({ headers: req.headers, body: String(req.body) });
        return {
          response: { statusCode: answer.status, headers: {}, body: Readable.from([Buffer.from(answer.body)]) },
        };
      },
    } as never,
  });
}

/** The lean client with a `fetch` that records the request and answers from `answers` in turn. */
function leanClient(answers: { status: number; body: string }[], sent: Sent[], sleeps: number[] = []) {
  return new Lean.Ec2QueryClient({
    region: REGION,
    credentials: async () => CREDENTIALS,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    fetch: (async (_url: URL, init: { headers: Record<string, string>; body: string }) => {
      sent.push({ headers: init.headers, body: init.body });
      const a = answers.shift() ?? { status: 500, body: '' };
      return new Response(a.body, { status: a.status });
    }) as never,
  });
}

const params = (body: string) => [...new URLSearchParams(body).entries()].sort();

const account = healthyAccount();
const reservation = {
  SubnetCidrReservationId: 'scr-0a1b2c3d4e5f67890',
  SubnetId: SUBNET,
  Cidr: '10.0.12.240/28',
  ReservationType: 'prefix',
  OwnerId: account.accountId,
  Description: 'pod-doctor: prefix delegation',
  Tags: [],
};

/** [command name, input, recorded output] for every EC2 call pod-doctor makes. */
const CALLS: [string, object, object][] = [
  [
    'DescribeInstances',
    { InstanceIds: [account.instances[0].InstanceId] },
    {
      Reservations: [
        { ReservationId: 'r-0a1b2c3d4e5f60718', OwnerId: account.accountId, Instances: account.instances },
      ],
    },
  ],
  [
    'DescribeInstances',
    { Filters: [{ Name: 'private-dns-name', Values: ['ip-10-0-12-34.*'] }], NextToken: 'tok' },
    { Reservations: [] },
  ],
  [
    'DescribeInstances',
    {
      Filters: [
        { Name: 'vpc-id', Values: [VPC] },
        { Name: 'instance-state-name', Values: ['running'] },
      ],
    },
    { Reservations: [] },
  ],
  [
    'DescribeNetworkInterfaces',
    { Filters: [{ Name: 'subnet-id', Values: [SUBNET] }] },
    { NetworkInterfaces: account.networkInterfaces, NextToken: 'page-2' },
  ],
  [
    'DescribeNetworkInterfaces',
    { NetworkInterfaceIds: ['eni-0123456789abcdef0'] },
    { NetworkInterfaces: account.networkInterfaces.slice(0, 1) },
  ],
  ['DescribeInstanceTypes', { InstanceTypes: ['m6i.large'] }, { InstanceTypes: account.instanceTypes }],
  [
    'DescribeRouteTables',
    {
      Filters: [
        { Name: 'vpc-id', Values: [VPC] },
        { Name: 'association.main', Values: ['true'] },
      ],
    },
    { RouteTables: account.routeTables },
  ],
  [
    'DescribeSecurityGroups',
    { GroupIds: [NODE_SG, 'sg-0fedcba9876543210'] },
    { SecurityGroups: account.securityGroups },
  ],
  ['DescribeSubnets', { SubnetIds: [SUBNET] }, { Subnets: account.subnets }],
  [
    'DescribeVpcEndpoints',
    { Filters: [{ Name: 'vpc-id', Values: [VPC] }] },
    { VpcEndpoints: [...account.vpcEndpoints, ...readyPreflightAccount().account.vpcEndpoints] },
  ],
  [
    'GetSubnetCidrReservations',
    { SubnetId: SUBNET },
    { SubnetIpv4CidrReservations: [reservation], SubnetIpv6CidrReservations: [] },
  ],
  [
    'CreateSubnetCidrReservation',
    {
      SubnetId: SUBNET,
      Cidr: '10.0.12.240/28',
      ReservationType: 'prefix',
      Description: 'pod-doctor: prefix delegation',
    },
    { SubnetCidrReservation: reservation },
  ],
  [
    'DeleteSubnetCidrReservation',
    { SubnetCidrReservationId: reservation.SubnetCidrReservationId },
    { DeletedSubnetCidrReservation: reservation },
  ],
  [
    'AuthorizeSecurityGroupIngress',
    {
      GroupId: 'sg-0fedcba9876543210',
      IpPermissions: [
        {
          IpProtocol: 'tcp',
          FromPort: 443,
          ToPort: 443,
          UserIdGroupPairs: [{ GroupId: NODE_SG, Description: 'pod-doctor: nodes to the ECR endpoints' }],
        },
      ],
    },
    {
      Return: true,
      SecurityGroupRules: [
        {
          SecurityGroupRuleId: 'sgr-0a1b2c3d4e5f60718',
          GroupId: 'sg-0fedcba9876543210',
          GroupOwnerId: account.accountId,
          IsEgress: false,
          IpProtocol: 'tcp',
          FromPort: 443,
          ToPort: 443,
          ReferencedGroupInfo: { GroupId: NODE_SG, UserId: account.accountId },
          Description: 'pod-doctor: nodes to the ECR endpoints',
        },
      ],
    },
  ],
  [
    'RevokeSecurityGroupIngress',
    {
      GroupId: 'sg-0fedcba9876543210',
      IpPermissions: [{ IpProtocol: 'tcp', FromPort: 443, ToPort: 443, UserIdGroupPairs: [{ GroupId: NODE_SG }] }],
    },
    { Return: true },
  ],
];

const commands = (name: string) => ({
  sdk: (
    Sdk as unknown as Record<
      string,
      new (
        i: object,
      ) => Sdk.EC2Client['send'] extends (c: infer C) => unknown ? C : never
    >
  )[`${name}Command`],
  // The reads are the EC2 client's commands; the writes are the door's (lambdas/aws/door/ec2-writes.ts).
  lean: ({ ...Lean, ...Writes } as unknown as Record<string, new (i: object) => Lean.Ec2Command<object, object>>)[
    `${name}Command`
  ],
});

describe('the lean EC2 client speaks EC2 Query as @aws-sdk/client-ec2 does', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-30T10:00:00Z'));
  });
  afterEach(() => vi.useRealTimers());

  it.each(CALLS)('%s: same parameters and signature, same output', async (name, input, recorded) => {
    const xml = ec2ResponseXml(name, recorded);
    const sdkSent: Sent[] = [];
    const leanSent: Sent[] = [];
    const { sdk, lean } = commands(name);
    const { $metadata: _sdkMeta, ...viaSdk } = await sdkClient({ status: 200, body: xml }, sdkSent).send(
      new sdk(structuredClone(input)) as never,
    );
    const { $metadata: leanMeta, ...viaLean } = (await leanClient([{ status: 200, body: xml }], leanSent).send(
      new lean(structuredClone(input)),
    )) as Record<string, unknown>;
    // The XML says what the recorded objects say (the SDK reads them back), and the lean client reads the same.
    expect(viaSdk).toEqual(recorded);
    expect(viaLean).toEqual(viaSdk);
    expect(leanMeta).toMatchObject({ httpStatusCode: 200, requestId: '59dbff89-35bd-4eac-99ed-be587EXAMPLE' });
    // The same parameters (the SDK orders them by its schema; EC2 reads them in any order).
    expect(params(leanSent[0].body)).toEqual(params(sdkSent[0].body));
    // Signed by @smithy/signature-v4 as the SDK signs: same scope, same payload hash, same date.
    const scope = (h: Record<string, string>) => /Credential=([^,]+)/.exec(h.authorization)?.[1];
    expect(scope(leanSent[0].headers)).toBe(scope(sdkSent[0].headers));
    for (const h of ['x-amz-date', 'content-type']) expect(leanSent[0].headers[h], h).toBe(sdkSent[0].headers[h]);
    expect(leanSent[0].headers['x-amz-content-sha256']).toBe(
      createHash('sha256').update(leanSent[0].body).digest('hex'),
    );
    expect(leanSent[0].headers.authorization).toMatch(
      /SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date,/,
    );
  });

  it('names EC2 errors by their code, as the SDK does', async () => {
    const body = ec2ErrorXml(
      'UnauthorizedOperation',
      'You are not authorized to perform this operation. User: arn:aws:sts::111122223333:assumed-role/PodDoctorCheck/x is not authorized to perform: ec2:DescribeSubnets',
    );
    const failure = (p: Promise<unknown>) => p.then(() => new Error('no error')).catch((e: Error) => e);
    const sdkError = await failure(
      sdkClient({ status: 403, body }, []).send(new Sdk.DescribeSubnetsCommand({ SubnetIds: [SUBNET] })),
    );
    const leanError = await failure(
      leanClient([{ status: 403, body }], []).send(new Lean.DescribeSubnetsCommand({ SubnetIds: [SUBNET] })),
    );
    expect(leanError).toBeInstanceOf(Lean.Ec2ServiceError);
    expect({ name: leanError.name, message: leanError.message }).toEqual({
      name: sdkError.name,
      message: sdkError.message,
    });
    expect(leanError).toMatchObject({ $fault: 'client', $metadata: { httpStatusCode: 403, attempts: 1 } });
  });

  it('retries RequestLimitExceeded and 503 with backoff, then answers', async () => {
    const sleeps: number[] = [];
    const sent: Sent[] = [];
    const out = await leanClient(
      [
        { status: 503, body: ec2ErrorXml('RequestLimitExceeded', 'Request limit exceeded.') },
        { status: 503, body: ec2ErrorXml('Unavailable', 'The service is unavailable.') },
        { status: 200, body: ec2ResponseXml('DescribeSubnets', { Subnets: account.subnets }) },
      ],
      sent,
      sleeps,
    ).send(new Lean.DescribeSubnetsCommand({ SubnetIds: [SUBNET] }));
    expect(out.Subnets).toEqual(account.subnets);
    expect(sent).toHaveLength(3);
    expect(sleeps).toHaveLength(2);
    expect(sleeps[0]).toBeLessThan(500);
  });

  it('gives up after maxAttempts and does not retry a client error', async () => {
    const throttled = { status: 503, body: ec2ErrorXml('RequestLimitExceeded', 'Request limit exceeded.') };
    const sent: Sent[] = [];
    const e = await leanClient(Array(6).fill(throttled), sent)
      .send(new Lean.DescribeSubnetsCommand({}))
      .catch((x: Error) => x);
    expect(e).toMatchObject({ name: 'RequestLimitExceeded', $metadata: { attempts: 6 } });
    expect(sent).toHaveLength(6);
    const once: Sent[] = [];
    const notFound = {
      status: 400,
      body: ec2ErrorXml('InvalidPermission.NotFound', 'The specified rule does not exist.'),
    };
    await expect(leanClient([notFound], once).send(new Lean.DescribeSubnetsCommand({}))).rejects.toThrow(
      'The specified rule does not exist.',
    );
    expect(once).toHaveLength(1);
  });

  it('follows NextToken to the last page', async () => {
    const [a, b] = account.networkInterfaces;
    const sent: Sent[] = [];
    const client = leanClient(
      [
        { status: 200, body: ec2ResponseXml('DescribeNetworkInterfaces', { NetworkInterfaces: [a], NextToken: 'p2' }) },
        { status: 200, body: ec2ResponseXml('DescribeNetworkInterfaces', { NetworkInterfaces: [b ?? a] }) },
      ],
      sent,
    );
    const ids: string[] = [];
    for await (const page of Lean.paginateDescribeNetworkInterfaces({ client }, { Filters: [] }))
      ids.push(...(page.NetworkInterfaces ?? []).map((n) => n.NetworkInterfaceId ?? ''));
    expect(ids).toEqual([a.NetworkInterfaceId, (b ?? a).NetworkInterfaceId]);
    expect(new URLSearchParams(sent[1].body).get('NextToken')).toBe('p2');
  });
});
