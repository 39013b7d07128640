import type { FailureClass } from '../contract/failure-classes.js';
import type { Finding } from '../contract/findings.js';

/** How the node probe shows a class's failure, and what the node looks like once it is gone. */
interface NodeSign {
  /** A probe finding that shows the failure still on the node. */
  readonly failing: (f: Finding) => boolean;
  /** What a clean probe means for this class, in words. */
  readonly healthy: string;
}

const SIGNS: Partial<Record<FailureClass, NodeSign>> = {
  'sandbox-image': {
    failing: (f) => f.id.startsWith('node.sandbox-image') && f.status !== 'pass',
    healthy: 'pause image present and pinned',
  },
  'pid-exhaustion': {
    failing: (f) => (f.id === 'node.pids' || f.id === 'node.zombies') && f.status === 'fail',
    healthy: 'PID/thread use back under the limit',
  },
};

/** The probe findings that show the class's failure on the node (none for classes the probe cannot see). */
export function failingOnNode(failureClass: string, findings: readonly Finding[]): Finding[] {
  const sign = SIGNS[failureClass as FailureClass];
  return sign ? findings.filter(sign.failing) : [];
}

/** Whether the probe can tell that the class's failure is gone from the node. */
export function probeShowsClass(failureClass: string): boolean {
  return SIGNS[failureClass as FailureClass] !== undefined;
}

/** What a clean probe means for the class. */
export function healthyNode(failureClass: string): string {
  return SIGNS[failureClass as FailureClass]?.healthy ?? 'node probe clean';
}
