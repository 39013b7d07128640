import { describe, expect, it } from 'vitest';
import { matchesEventPattern } from '../../local/event-pattern.js';

// The examples of the event-ruler README (github.com/aws/event-ruler), the library EventBridge matches with.
const EC2_EVENT = {
  version: '0',
  id: 'ddddd4-aaaa-7777-4444-345499zzzzzz',
  'detail-type': 'EC2 Instance State-change Notification',
  source: 'aws.ec2',
  account: '012345679012',
  time: '2017-10-02T16:24:49Z',
  region: 'us-east-1',
  resources: ['arn:aws:ec2:us-east-1:123456789012:instance/i-000000aaaaaa00000'],
  detail: {
    'c-count': 5,
    'd-count': 3,
    'x-limit': 301.8,
    'source-ip': '10.0.0.33',
    instance: 'i-000000aaaaaa00000',
    state: 'running',
  },
};

describe('the EventBridge pattern matcher used by the rule tests', () => {
  it.each([
    [
      {
        'detail-type': ['EC2 Instance State-change Notification'],
        resources: ['arn:aws:ec2:us-east-1:123456789012:instance/i-000000aaaaaa00000'],
        detail: { state: ['initializing', 'running'] },
      },
      true,
    ],
    [{ time: [{ prefix: '2017-10-02' }] }, true],
    [{ source: [{ suffix: 'ec2' }] }, true],
    [{ source: [{ 'equals-ignore-case': 'AWS.EC2' }] }, true],
    [{ detail: { state: [{ 'anything-but': 'initializing' }] } }, true],
    [{ detail: { state: [{ 'anything-but': ['stopped', 'running'] }] } }, false],
    [{ detail: { state: [{ 'anything-but': { prefix: 'run' } }] } }, false],
    [{ detail: { 'c-count': [{ numeric: ['>', 0, '<=', 5] }], 'x-limit': [{ numeric: ['=', 301.8] }] } }, true],
    [{ detail: { 'c-count': [{ exists: true }] } }, true],
    [{ detail: { 'c-count': [{ exists: false }] } }, false],
    [{ detail: { missing: [{ exists: false }] } }, true],
    // A field the event lacks never matches anything-but: only exists:false matches absence.
    [{ detail: { missing: [{ 'anything-but': 'x' }] } }, false],
    [{ source: [{ wildcard: 'aws.*' }] }, true],
    [{ $or: [{ source: ['aws.s3'] }, { detail: { state: ['running'] } }] }, true],
  ])('%j → %s', (pattern, expected) => {
    expect(matchesEventPattern(pattern as Record<string, unknown>, EC2_EVENT)).toBe(expected);
  });

  it('matches an event array when any element matches', () => {
    expect(matchesEventPattern({ detail: { ids: [3] } }, { detail: { ids: [1, 2, 3] } })).toBe(true);
    expect(
      matchesEventPattern({ detail: { items: { id: ['b'] } } }, { detail: { items: [{ id: 'a' }, { id: 'b' }] } }),
    ).toBe(true);
  });
});
