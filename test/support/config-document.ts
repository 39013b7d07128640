import type { WorkflowConfig } from '../../lambdas/core/workflow/workflow-config.js';

type Resources = Record<string, { Type: string; Properties?: Record<string, unknown> }>;

/** A CloudFormation string (literal or Fn::Join) with every reference replaced by `TOKEN`. */
function flatten(v: unknown): string {
  if (typeof v === 'string') return v;
  const join = (v as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
  return join ? join[1].map((p) => (typeof p === 'string' ? p : 'TOKEN')).join(join[0]) : 'TOKEN';
}

/**
 * The configuration document the template's Config resource stores (what every function reads),
 * parsed, with references as `TOKEN`.
 */
export function configDocument(template: { Resources: Resources } | Record<string, unknown>): WorkflowConfig {
  const resources = (template as { Resources: Resources }).Resources;
  const found = Object.values(resources).filter((r) => r.Type === 'Custom::PodDoctorConfig');
  if (found.length !== 1) throw new Error(`expected one Custom::PodDoctorConfig, found ${found.length}`);
  return JSON.parse(flatten(found[0].Properties?.Document)) as WorkflowConfig;
}
