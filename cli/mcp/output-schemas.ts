import { z } from 'zod';
import { FAILURE_CLASSES } from '../../lambdas/core/contract/failure-classes.js';

/**
 * What each MCP tool answers, as its `outputSchema`: the server returns the same value as
 * `structuredContent` (checked against the schema by the SDK on both sides) and as JSON text beside it
 * for clients that read only text. Objects whose fields pod-doctor fixes are closed; the summary, the
 * evidence of a finding and a classification's entities carry what the run found, so they stay open.
 */

const incidentRun = z.object({
  incidentId: z.string(),
  class: z.string(),
  cluster: z.string(),
  outcome: z.string(),
  kind: z.string().describe('what it asks of a human: needs-human, verified, closed, informational'),
  closedAt: z.string(),
  executionArn: z.string(),
  summary: z.string().nullable().describe('where the run summary is (s3://…)'),
});

const finding = z.looseObject({
  id: z.string(),
  status: z.enum(['pass', 'warn', 'fail', 'error']),
  summary: z.string(),
  remediation: z.string().nullable(),
});

export const OUTPUT_SCHEMAS = {
  list_incidents: { incidents: z.array(incidentRun) },
  get_incident: {
    runs: z.array(incidentRun),
    summary: z
      .looseObject({})
      .nullable()
      .describe('the latest run summary: cause, evidence, checks, actions, next step'),
  },
  diagnose: {
    cluster: z.string(),
    node: z.looseObject({ instanceId: z.string() }).nullable(),
    findings: z.array(finding),
  },
  classify_lines: {
    results: z.array(z.looseObject({ class: z.enum(FAILURE_CLASSES), error: z.string().optional() })),
  },
  explain_class: {
    class: z.enum(FAILURE_CLASSES),
    incidentScope: z.string(),
    defaultMode: z.string(),
    accountChecks: z.array(z.string()),
    advice: z.string().nullable(),
    signatures: z.array(z.object({ id: z.string(), cause: z.string() })),
  },
  request_action: {
    incidentId: z.string(),
    execution: z.string(),
    status: z.enum(['waiting-for-approval', 'ended-without-asking', 'running']),
    detail: z.string(),
    approval: z.string(),
  },
} as const;
