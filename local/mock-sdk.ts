import type { Filter } from '@aws-sdk/client-ec2';
import type { Answer, WriteFaults } from './mock-account-writes.js';

// What every recorded-account service shares: the SDK's error and metadata shapes, fault
// injection by command name, EC2-style paging and filters.

export const meta = (httpStatusCode: number) => ({
  httpStatusCode,
  requestId: '5c1a8f3e-8d2b-4c9e-9a55-0c6f1d2e3a4b',
  attempts: 1,
  totalRetryDelay: 0,
});

/** Faults to inject by command name (e.g. DescribeSubnetsCommand). */
export interface Faults extends WriteFaults {
  readonly throttle?: readonly string[];
  readonly deny?: readonly string[];
}

export function fault(name: string, faults: Faults): Error | undefined {
  if (faults.throttle?.includes(name)) {
    return serviceError('ThrottlingException', 'Rate exceeded', 400);
  }
  if (faults.deny?.includes(name)) {
    // EC2 says UnauthorizedOperation; the other services AccessDenied(Exception).
    const ec2 =
      /^(Describe(Instances|RouteTables|VpcEndpoints|SecurityGroups|Subnets|NetworkInterfaces|InstanceTypes)|GetSubnetCidrReservations)Command$/.test(
        name,
      );
    return serviceError(
      ec2 ? 'UnauthorizedOperation' : 'AccessDeniedException',
      `User: arn:aws:sts::111122223333:assumed-role/PodDoctorCheck/pod-doctor is not authorized to perform: ${name.replace(/Command$/, '')}`,
      403,
    );
  }
  return undefined;
}

/** An error shaped like the SDK's ServiceException (name, $fault, $metadata). */
export function serviceError(name: string, message: string, httpStatusCode: number): Error {
  return Object.assign(new Error(message), { name, $fault: 'client', $metadata: meta(httpStatusCode) });
}

/**
 * Pages of a list the way EC2 returns them: at most `size` items and a NextToken for the rest. A small
 * default page makes every caller prove it follows NextToken.
 */
export function paged<T>(items: readonly T[], token: string | undefined, size = 2): { items: T[]; NextToken?: string } {
  const start = token ? Number(token.replace('page-', '')) : 0;
  const end = start + size;
  return { items: items.slice(start, end), NextToken: end < items.length ? `page-${end}` : undefined };
}

export function filterValues(filters: Filter[] | undefined, name: string): string[] | undefined {
  return filters?.find((f) => f.Name === name)?.Values;
}

export const glob = (pattern: string, v: string | undefined) =>
  v !== undefined && new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`).test(v);

/** Wraps each answer with the injected faults and the response metadata. */
export function answers(faults: Faults): Answer {
  return <T>(name: string, answer: (input: T) => object) =>
    async (input: T) => {
      const f = fault(name, faults);
      if (f) throw f;
      return { $metadata: meta(200), ...answer(input) };
    };
}
