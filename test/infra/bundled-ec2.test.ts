import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleHandler } from '../../lib/constructs/bundling.js';
import { lambdaEntry } from '../../lib/constructs/paths.js';
import { healthyAccount, NODE_DNS, NODE_ID, NODE_SG, SUBNET, VPC } from '../../local/account-snapshot.js';
import { invokeBundled } from '../support/bundles.js';
import { ec2ResponseXml } from '../support/ec2-xml.js';

/**
 * The check-network bundle, outside the project, in a fresh node process, with the credentials and
 * region Lambda sets: its EC2 Query client signs (SigV4, service ec2), POSTs and parses EC2's XML
 * answers from a local endpoint (AWS_ENDPOINT_URL_EC2) that serves the recorded account.
 */
const account = healthyAccount();
const ANSWERS: Record<string, object> = {
  DescribeRouteTables: { RouteTables: account.routeTables },
  DescribeVpcEndpoints: { VpcEndpoints: account.vpcEndpoints },
  DescribeSecurityGroups: { SecurityGroups: account.securityGroups },
  DescribeSubnets: { Subnets: account.subnets },
  DescribeNetworkInterfaces: { NetworkInterfaces: account.networkInterfaces },
  GetSubnetCidrReservations: { SubnetIpv4CidrReservations: [], SubnetIpv6CidrReservations: [] },
};

describe('a bundled handler calls EC2 with the lean EC2 Query client it carries', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pod-doctor-bundle-ec2-'));
  const seen: { action: string; authorization: string; token: string }[] = [];
  let server: Server;

  beforeAll(async () => {
    bundleHandler(lambdaEntry('check-network').source, dir);
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => {
        body += d;
      });
      req.on('end', () => {
        const action = new URLSearchParams(body).get('Action') ?? '';
        seen.push({
          action,
          authorization: String(req.headers.authorization),
          token: String(req.headers['x-amz-security-token']),
        });
        const answer = ANSWERS[action];
        res.writeHead(answer ? 200 : 400, { 'content-type': 'text/xml;charset=UTF-8' });
        res.end(answer ? ec2ResponseXml(action, answer) : '');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  });
  afterAll(() => {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('check-network signs, sends and reads every EC2 call of its group', async () => {
    const event = {
      cluster: 'prod-eu',
      region: 'eu-west-1',
      node: {
        instanceId: NODE_ID,
        privateDnsName: NODE_DNS,
        subnetId: SUBNET,
        vpcId: VPC,
        securityGroupIds: [NODE_SG],
      },
    };
    const context = { functionName: 'pod-doctor-check-network', awsRequestId: 'c6af9ac6-7b61-11e6-9a41-93e812345678' };
    const answer = await invokeBundled<{
      findings: { id: string; status: string; summary: string }[];
    }>(dir, event, context, {
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'AKIDLOCAL',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_SESSION_TOKEN: 'session-token',
      AWS_ENDPOINT_URL_EC2: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      POWERTOOLS_METRICS_NAMESPACE: 'PodDoctor',
      POWERTOOLS_SERVICE_NAME: 'pod-doctor',
      // As PodDoctorFunction sets it on every function (the handler parses its environment at start-up).
      NODE_OPTIONS: '--enable-source-maps',
    });
    expect(answer.findings.filter((f) => f.status === 'error')).toEqual([]);
    expect(answer.findings.map((f) => f.id)).toEqual(
      expect.arrayContaining(['subnet.free-ips', 'vpc.endpoint.ecr-api']),
    );
    expect([...new Set(seen.map((s) => s.action))].sort()).toEqual(Object.keys(ANSWERS).sort());
    for (const s of seen) {
      expect(s.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDLOCAL\/\d{8}\/eu-west-1\/ec2\/aws4_request, /);
      expect(s.authorization).toContain('x-amz-security-token');
      expect(s.token).toBe('session-token');
    }
  });
});
