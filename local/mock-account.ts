import { ECRClient } from '@aws-sdk/client-ecr';
import { EKSClient } from '@aws-sdk/client-eks';
import { IAMClient } from '@aws-sdk/client-iam';
import { mockClient } from 'aws-sdk-client-mock';
import type { CheckClients } from '../lambdas/aws/readers/account/check-input.js';
import {
  type ChangeReader,
  changeReaderOf,
  changeRecord,
  fromCloudTrailRecord,
} from '../lambdas/core/cloudtrail/change-records.js';
import type { AccountSnapshot } from './account-snapshot.js';
import { Ec2Double } from './ec2-double.js';
import { mockReservationWrites, mockWrites } from './mock-account-writes.js';
import { mockEc2Reads } from './mock-ec2.js';
import { mockEcrReads } from './mock-ecr.js';
import { mockCacheRules } from './mock-ecr-cache.js';
import { mockEksReads } from './mock-eks.js';
import { mockAddonWrites } from './mock-eks-addon.js';
import { mockIamReads } from './mock-iam.js';
import { answers, type Faults, fault } from './mock-sdk.js';

export type { Faults } from './mock-sdk.js';

/**
 * Clients answering from a recorded account, with optional injected faults: the SDK clients through
 * aws-sdk-client-mock, EC2 (the lean EC2 Query client's commands) through its double.
 */
export function mockAccount(account: AccountSnapshot, faults: Faults = {}): CheckClients & { restore(): void } {
  const iam = new IAMClient({ region: 'us-east-1', credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'x' } });
  const eks = new EKSClient({
    region: account.region,
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'x' },
  });
  const ecr = new ECRClient({
    region: account.region,
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'x' },
  });
  const e = new Ec2Double();
  const i = mockClient(iam);
  const k = mockClient(eks);
  const r = mockClient(ecr);
  const on = answers(faults);
  mockEc2Reads(e, account, on);
  mockIamReads(i, account, on);
  mockEksReads(k, account, on);
  mockEcrReads(r, account, on);

  // The writes of the account remedies change the snapshot itself: later reads see them.
  mockWrites(account, { iam: i, ec2: e }, on as never, faults);
  mockReservationWrites(account, e, on as never, faults);
  mockCacheRules(account, r, on as never);
  mockAddonWrites(account, k, on as never, faults);

  // The change index, as the ingest path fills it from the CloudTrail events EventBridge delivers
  // (built on each read: tests add events to the snapshot after the clients exist).
  const index = () =>
    changeReaderOf(
      account.cloudTrailEvents.flatMap((ev) => {
        const record = {
          ...(JSON.parse(ev.CloudTrailEvent ?? '{}') as Record<string, unknown>),
          eventID: ev.EventId,
          eventName: ev.EventName,
          eventSource: ev.EventSource,
          eventTime: ev.EventTime?.toISOString(),
          userIdentity: { arn: ev.Username },
        };
        const change = changeRecord(fromCloudTrailRecord(record));
        return change ? [change] : [];
      }),
    );
  const changes: ChangeReader = {
    recent: async (resource, since, limit) => {
      const f = fault('QueryCommand', faults);
      if (f) throw f;
      return index().recent(resource, since, limit);
    },
  };

  return {
    ec2: e,
    iam,
    eks,
    changes,
    ecr: () => ecr,
    restore: () => {
      for (const stub of [i, k, r]) stub.restore();
    },
  };
}
