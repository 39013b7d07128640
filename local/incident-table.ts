import { App, Stack } from 'aws-cdk-lib';
import { IncidentStore } from '../lib/constructs/incident-store.js';
import { LocalDynamo, type LocalTable, tableSchema } from './dynamo.js';
import type { CfnResource } from './template.js';

let resource: CfnResource | undefined;

/** The incident table resource as the IncidentStore construct synthesizes it (alone: fast). */
function incidentTableResource(): CfnResource {
  if (resource) return resource;
  const app = new App();
  const stack = new Stack(app, 'IncidentStoreOnly');
  new IncidentStore(stack, 'Store');
  const t = app.synth().getStackByName(stack.stackName).template as { Resources: Record<string, CfnResource> };
  resource = Object.values(t.Resources).find((r) => r.Type.startsWith('AWS::DynamoDB::'));
  if (!resource) throw new Error('IncidentStore synthesized no table');
  return resource;
}

/** An empty dynalite table named `name` with the synthesized incident table's key schema. */
export async function freshTable(name: string): Promise<LocalTable> {
  return (await LocalDynamo.get()).freshTable(tableSchema(incidentTableResource(), name));
}
