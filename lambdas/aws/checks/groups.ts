import type { Finding } from '../../core/contract/findings.js';
import type { CheckClients, CheckGroup, CheckInput } from '../readers/account/check-input.js';
import { runChangesGroup } from './changes-group.js';
import { runEcrGroup } from './ecr-group.js';
import { runEksGroup } from './eks-group.js';
import { checkHandler } from './handler-kit.js';
import { runIamGroup } from './iam-group.js';
import { runNetworkGroup } from './network-group.js';

// Every check group at once, for callers that hold every client (the CLI's diagnose, the local
// runtime, tests). The Lambda handlers import their own group only (lambdas/handlers/check-*.ts).
export {
  CHECK_GROUPS,
  type CheckClients,
  type CheckGroup,
  type CheckInput,
  CheckInputError,
  checkInputSchema,
  parseCheckInput,
} from '../readers/account/check-input.js';

/** Runs one check group; every check either returns findings or an `error` finding, never throws. */
export async function runCheckGroup(
  group: CheckGroup,
  input: CheckInput,
  clients: CheckClients,
  now: Date,
): Promise<Finding[]> {
  switch (group) {
    case 'iam':
      return runIamGroup(input, clients, now);
    case 'ecr':
      return runEcrGroup(input, clients, now);
    case 'network':
      return runNetworkGroup(input, clients, now);
    case 'eks':
      return runEksGroup(input, clients, now);
    case 'changes':
      return runChangesGroup(input, clients, now);
  }
}

/** The handler of one check group on a full set of clients (local runtime, tests). */
export function makeCheckHandler(group: CheckGroup, clients: CheckClients, now: () => Date = () => new Date()) {
  return checkHandler(group, (input, c: CheckClients, at) => runCheckGroup(group, input, c, at), clients, now);
}
