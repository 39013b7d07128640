import { describe, expect, it } from 'vitest';
import { classify, quickUnknown } from '../../lambdas/core/detect/classifier.js';
import { parseRecord } from '../../lambdas/core/detect/records.js';

/**
 * Envelopes the reader reads generically (records.ts): a CloudTrail record (a trail's CloudWatch Logs event or
 * EventBridge's detail), the Container Insights host log group's syslog record, `aws logs tail` output, and JSON
 * logging (kubelet --logging-format=json, zap) behind a journal prefix or as a dataplane message.
 */
const sandbox =
  'failed to setup network for sandbox "0f1e": plugin type="aws-cni" name="aws-cni" failed (add): add cmd: failed to assign an IP address to container';
const kubeletJson = JSON.stringify({
  ts: 1679583936671.95,
  caller: 'kuberuntime/kuberuntime_sandbox.go:72',
  msg: 'Failed to create sandbox for pod',
  pod: { name: 'web-0', namespace: 'default' },
  err: `rpc error: code = Unknown desc = ${sandbox}`,
  v: 0,
});

describe('a CloudTrail record', () => {
  const trail = {
    eventVersion: '1.08',
    eventSource: 'ec2.amazonaws.com',
    eventName: 'AssignPrivateIpAddresses',
    awsRegion: 'us-east-1',
    userAgent: 'aws-sdk-go/1.44.0 (go1.19; linux; amd64)',
    errorCode: 'Client.InsufficientFreeAddressesInSubnet',
    errorMessage: 'The specified subnet does not have enough free addresses to satisfy the request.',
  };

  it("is read as the call and its error, from a trail's log group and from EventBridge", () => {
    const line = JSON.stringify(trail);
    expect(parseRecord(line)).toMatchObject({
      format: 'cloudtrail',
      source: 'ec2.amazonaws.com',
      message:
        'ec2.amazonaws.com: AssignPrivateIpAddresses: Client.InsufficientFreeAddressesInSubnet: The specified subnet does not have enough free addresses to satisfy the request.',
    });
    expect(classify(line).class).toBe('ip-exhaustion');
    const bridged = JSON.stringify({ 'detail-type': 'AWS API Call via CloudTrail', source: 'aws.ec2', detail: trail });
    expect(classify(bridged)).toMatchObject({ class: 'ip-exhaustion', format: 'cloudtrail' });
    expect(quickUnknown(line)).toBeUndefined();
  });

  it("reads a node role's ECR denial as registry-auth, another caller's EC2 denial and a success as unknown", () => {
    const ecr = {
      eventSource: 'ecr.amazonaws.com',
      eventName: 'BatchGetImage',
      errorCode: 'AccessDenied',
      errorMessage:
        'User: arn:aws:sts::111122223333:assumed-role/eks-node/i-0abc is not authorized to perform: ecr:BatchGetImage on resource: arn:aws:ecr:us-east-1:111122223333:repository/app because no resource-based policy allows the ecr:BatchGetImage action',
    };
    expect(classify(JSON.stringify(ecr)).class).toBe('registry-auth');
    const launch = {
      eventSource: 'ec2.amazonaws.com',
      eventName: 'RunInstances',
      errorCode: 'Client.UnauthorizedOperation',
      errorMessage: 'You are not authorized to perform this operation. Encoded authorization failure message: abc',
    };
    expect(classify(JSON.stringify(launch)).class).toBe('unknown');
    const ok = { eventSource: 'ec2.amazonaws.com', eventName: 'AssignPrivateIpAddresses', awsRegion: 'us-east-1' };
    expect(classify(JSON.stringify(ok))).toMatchObject({ class: 'unknown', format: 'cloudtrail' });
    expect(classify(JSON.stringify(ok)).error).toBeUndefined();
  });
});

describe('Container Insights and CloudWatch Logs output', () => {
  it("reads the host log group's syslog record: host and ident are the node and the program", () => {
    const line = JSON.stringify({
      host: 'ip-10-0-101-15',
      ident: 'kubelet',
      message: `E0323 15:05:36.670951 6922 x.go:1] ${sandbox}`,
    });
    expect(classify(line)).toMatchObject({ class: 'ip-exhaustion', format: 'container-insights' });
    expect(parseRecord(line)).toMatchObject({ node: 'ip-10-0-101-15', source: 'kubelet' });
  });

  it("reads `aws logs tail` output: the time and log stream before the event's JSON", () => {
    const event = JSON.stringify({
      hostname: 'ip-10-0-101-15.ec2.internal',
      systemd_unit: 'kubelet.service',
      message: sandbox,
    });
    const line = `2023-03-23T15:05:36.671000+00:00 kubelet.service-ip-10-0-101-15.ec2.internal ${event}`;
    expect(classify(line)).toMatchObject({ class: 'ip-exhaustion', format: 'container-insights' });
    expect(classify(line).entities.node).toBe('ip-10-0-101-15.ec2.internal');
  });
});

describe('JSON logging behind a prefix', () => {
  it("reads kubelet's JSON format behind a journal prefix: its msg and err, the journal's node", () => {
    const line = `Mar 23 15:05:36 ip-10-0-101-15 kubelet[6922]: ${kubeletJson}`;
    expect(parseRecord(line)).toMatchObject({ format: 'json', node: 'ip-10-0-101-15', source: 'kubelet' });
    expect(parseRecord(line).message).toBe(
      `Failed to create sandbox for pod: rpc error: code = Unknown desc = ${sandbox}`,
    );
    expect(classify(line).class).toBe('ip-exhaustion');
  });

  it('reads a dataplane record whose journal message is JSON as that JSON', () => {
    const line = JSON.stringify({ hostname: 'ip-10-0-101-15', systemd_unit: 'kubelet.service', message: kubeletJson });
    expect(parseRecord(line).message).toContain('Failed to create sandbox for pod: rpc error');
    expect(classify(line)).toMatchObject({ class: 'ip-exhaustion', format: 'container-insights' });
  });

  it('keeps broken JSON behind a prefix as text, and reads one level of nesting only', () => {
    const broken =
      'Mar 23 15:05:36 ip-10-0-101-15 kubelet[6922]: {"ts":1,"msg":"add cmd: failed to assign an IP address to container"';
    expect(classify(broken)).toMatchObject({ class: 'ip-exhaustion', format: 'raw' });
    expect(classify(broken).error).toBeUndefined();
    const inner = `Mar 23 15:05:36 ip-10-0-101-15 kubelet[6922]: ${kubeletJson}`;
    const nested = `Mar 23 15:05:36 ip-10-0-101-16 fluent-bit[1]: ${JSON.stringify({ msg: inner, v: 0 })}`;
    expect(parseRecord(nested)).toMatchObject({ format: 'json', node: 'ip-10-0-101-16' });
    // The second level is read as text: its journal prefix is taken off, its JSON is not parsed again.
    expect(parseRecord(nested).message.startsWith('{"ts":1679583936671.95,')).toBe(true);
  });
});
