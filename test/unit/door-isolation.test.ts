import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/constructs/paths.js';
import { closure, doorIsolationViolations, projectModules, type SourceModule } from '../support/door-isolation.js';

/**
 * Only the door holds mutating clients, read from the source: no module of lambdas/ or lib/ outside
 * lambdas/aws/door (and the door's handler) imports a door module, a mutating SDK command of a
 * service pod-doctor acts on, a Kubernetes API class, or builds a mutating EC2 command or a non-GET
 * Kubernetes request; no other function's bundle reaches the door's modules.
 */
const modules = projectModules(PROJECT_ROOT, ['lambdas', 'lib']);

/** The tree with one module added (or replaced). */
const withModule = (path: string, source: string): SourceModule[] => [
  ...modules.filter((m) => m.path !== path),
  { path, source },
];

describe('only the door can change a node, the account or the cluster', () => {
  it('no module outside the door imports or builds a mutating call', () => {
    expect(modules.length).toBeGreaterThan(100);
    expect(doorIsolationViolations(modules)).toEqual([]);
  });

  it('no handler but the door reaches a door module through its imports', () => {
    const handlers = modules.filter((m) => /^lambdas\/handlers\/[^/]+\.ts$/.test(m.path));
    expect(handlers.length).toBeGreaterThan(10);
    for (const h of handlers) {
      const reached = [...closure(h.path, modules)].filter((p) => p.startsWith('lambdas/aws/door/'));
      if (/^lambdas\/handlers\/door(-remedies)?\.ts$/.test(h.path))
        expect(reached).toContain('lambdas/aws/door/service.ts');
      else expect(reached, h.path).toEqual([]);
    }
  });

  it.each([
    [
      'a mutating SDK command',
      "import { SendCommandCommand } from '@aws-sdk/client-ssm';\nexport const c = SendCommandCommand;",
      'imports SendCommandCommand from @aws-sdk/client-ssm',
    ],
    [
      'an IAM write',
      "import { IAMClient, AttachRolePolicyCommand } from '@aws-sdk/client-iam';\nexport const c = [IAMClient, AttachRolePolicyCommand];",
      'imports AttachRolePolicyCommand from @aws-sdk/client-iam',
    ],
    [
      'a whole acted-on SDK client',
      "import * as ec2 from '@aws-sdk/client-ec2';\nexport const c = ec2;",
      'imports all of @aws-sdk/client-ec2',
    ],
    [
      "the door's EC2 writes",
      "import { AuthorizeSecurityGroupIngressCommand } from '../door/ec2-writes.js';\nexport const c = AuthorizeSecurityGroupIngressCommand;",
      "imports the door's module lambdas/aws/door/ec2-writes.ts",
    ],
    [
      'an EC2 write built with the command list',
      "import { command } from '../ec2/commands.js';\nexport class X extends command('ModifyInstanceAttribute') {}",
      'builds the EC2 command ModifyInstanceAttribute',
    ],
    [
      "the library's Kubernetes API class",
      "import { CoreV1Api } from '@kubernetes/client-node';\nexport const c = CoreV1Api;",
      'imports CoreV1Api of @kubernetes/client-node',
    ],
    [
      'a Kubernetes DELETE',
      "import { HttpMethod } from '@kubernetes/client-node/dist/gen/http/http.js';\nexport const m = HttpMethod.DELETE;",
      'sends a Kubernetes DELETE request',
    ],
    [
      'a door module imported at run time',
      "export const load = () => import('../door/kubernetes-writes.js');",
      "imports the door's module lambdas/aws/door/kubernetes-writes.ts",
    ],
  ])('fails when a module outside the door adds %s', (_, source, what) => {
    const path = 'lambdas/aws/workflow/added.ts';
    expect(doorIsolationViolations(withModule(path, source))).toEqual([{ path, what }]);
  });

  it('a type-only import of the SDK sends nothing and passes; the same inside the door passes', () => {
    const typeOnly =
      "import type { SendCommandCommand } from '@aws-sdk/client-ssm';\nexport type C = SendCommandCommand;";
    expect(doorIsolationViolations(withModule('lambdas/aws/workflow/added.ts', typeOnly))).toEqual([]);
    const inDoor = "import { SendCommandCommand } from '@aws-sdk/client-ssm';\nexport const c = SendCommandCommand;";
    expect(doorIsolationViolations(withModule('lambdas/aws/door/added.ts', inDoor))).toEqual([]);
  });

  it("fails when another handler's bundle comes to reach a door module", () => {
    const decide = modules.find((m) => m.path === 'lambdas/aws/workflow/decide.ts') as SourceModule;
    const tree = withModule(decide.path, `import '../door/reservations.js';\n${decide.source}`);
    expect([...closure('lambdas/handlers/decide.ts', tree)]).toContain('lambdas/aws/door/reservations.ts');
  });
});
