import { S3Client } from '@aws-sdk/client-s3';
import { documentClient, metrics, tracer, workflowConfig } from '../aws/workflow/runtime.js';
import { type SummarizeInput, summarizeIncident } from '../aws/workflow/summarize.js';

const s3 = tracer.captureAWSv3Client(new S3Client({ maxAttempts: 6 }));

/** Workflow steps "Summarize" and "Record failure": evidence, history row, metrics, lock release. */
export const handler = async (event: SummarizeInput) => {
  try {
    return await summarizeIncident(event, {
      ddb: documentClient(),
      s3,
      config: workflowConfig(),
      metrics,
      now: Date.now,
    });
  } finally {
    metrics.publishStoredMetrics();
  }
};
