import * as z from 'zod/mini';

/**
 * Run Command's completion, as Systems Manager reports it on EventBridge: one "EC2 Command Invocation
 * Status-change Notification" (source aws.ssm) per node a command runs on, each time the invocation's
 * status changes. The shape, from
 * https://docs.aws.amazon.com/systems-manager/latest/userguide/monitoring-systems-manager-event-examples.html
 * ("Run Command Invocation Status-change Notification"):
 * { "detail-type": "EC2 Command Invocation Status-change Notification", "source": "aws.ssm",
 *   "resources": ["arn:aws:ec2:us-east-1:123456789012:instance/i-abcd1111"],
 *   "detail": { "command-id": "e8d3c0e4-…", "document-name": "AWS-RunPowerShellScript",
 *               "instance-id": "i-9bb89e2b", "requested-date-time": "2016-07-10T21:51:30.049Z", "status": "Success" } }
 * Only AWS puts events with an `aws.*` source on a bus (PutEvents refuses them): the status is the
 * service's word (AWS rank), never a tenant's.
 */
export const COMMAND_INVOCATION_STATUS_CHANGE = 'EC2 Command Invocation Status-change Notification';

/** The invocation statuses after which nothing changes (GetCommandInvocation's Status; Cancelling, Pending, InProgress, Delayed are not). */
export const FINAL_INVOCATION_STATUSES = ['Success', 'Failed', 'TimedOut', 'Cancelled'] as const;

const commandId = z.string().check(z.regex(/^[0-9a-f-]{36}$/));

/** One invocation status change as the rule delivers it (the fields the rendezvous reads). */
export const commandStatusEventSchema = z.looseObject({
  source: z.literal('aws.ssm'),
  'detail-type': z.literal(COMMAND_INVOCATION_STATUS_CHANGE),
  account: z.string(),
  region: z.string(),
  detail: z.looseObject({
    'command-id': commandId,
    'instance-id': z.string().check(z.regex(/^(i|mi)-[0-9a-f]{8,17}$/)),
    'document-name': z.string().check(z.maxLength(256)),
    status: z.enum(FINAL_INVOCATION_STATUSES),
  }),
});
export type CommandStatusEvent = z.output<typeof commandStatusEventSchema>;

/** What "Door: await command" (waitForTaskToken) sends: its token and the command it waits for. */
export const commandAwaitSchema = z.object({
  taskToken: z.string().check(z.minLength(1), z.maxLength(1_024)),
  commandId,
  instanceId: z.string().check(z.minLength(1), z.maxLength(32)),
});
export type CommandAwait = z.output<typeof commandAwaitSchema>;

/** What the workflow resumes with: the command and the status the event reported (the door reads the result itself). */
export interface CommandCompletion {
  readonly commandId: string;
  readonly status: (typeof FINAL_INVOCATION_STATUSES)[number];
}
