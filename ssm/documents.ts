/**
 * SSM Command documents (schema 2.2) built from the node scripts in this folder. Pure: takes the
 * script texts, returns the document content, so tests can run exactly what a node would run.
 *
 * Parameters reach the scripts only as `SSM_<Name>` environment variables (interpolationType
 * ENV_VAR), each constrained by an allowedPattern that admits no quote, space or shell
 * metacharacter, and each re-validated by the script itself.
 */

/** One document parameter and how it maps onto the script's command line. */
export interface NodeCommandParameter {
  readonly name: string;
  readonly description: string;
  readonly default: string;
  /** Anchored pattern; must reject quotes, whitespace and shell metacharacters. */
  readonly allowedPattern: string;
  /** `value`: `--flag VALUE` when non-empty · `switch`: `--flag` when the value is `true`. */
  readonly kind: 'value' | 'switch';
  readonly flag: string;
}

export interface NodeCommandSpec {
  /** Script file in `ssm/`. */
  readonly script: string;
  readonly description: string;
  readonly stepName: string;
  readonly timeoutSeconds: number;
  readonly parameters: readonly NodeCommandParameter[];
}

const DRY_RUN: NodeCommandParameter = {
  name: 'DryRun',
  description: 'true: report what would be done and change nothing',
  default: 'false',
  allowedPattern: '^(true|false)$',
  kind: 'switch',
  flag: '--dry-run',
};

/** Sandbox image reference: registry[:port]/path[:tag][@sha256:digest]. Same as POD_DOCTOR_IMAGE_RE in lib.sh. */
export const IMAGE_PATTERN =
  '^[A-Za-z0-9][A-Za-z0-9.-]*(:[0-9]{1,5})?(/[a-z0-9]+([._-][a-z0-9]+)*)+(:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(@sha256:[a-f0-9]{64})?$';

export const NODE_COMMANDS = {
  probeNode: {
    script: 'probe-node.sh',
    stepName: 'probeNode',
    description:
      'pod-doctor: read-only node probe (sandbox image, runtime, disk/inode and PID headroom, ECR reachability). Last output line is JSON.',
    timeoutSeconds: 120,
    parameters: [
      {
        name: 'Region',
        description: 'Region whose ECR endpoints to test on 443 (default: from the sandbox image)',
        default: '',
        allowedPattern: '^$|^[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-[0-9]$',
        kind: 'value',
        flag: '--region',
      },
    ],
  },
  repairPauseImage: {
    script: 'repair-pause-image.sh',
    stepName: 'repairPauseImage',
    description:
      'pod-doctor: restore and pin the sandbox (pause) image in place: re-import /etc/eks/pause.tar (AL2023) or pull with an ECR token (AL2). Idempotent. Last output line is JSON.',
    timeoutSeconds: 300,
    parameters: [
      {
        name: 'Image',
        description: 'Sandbox image to repair (default: the one containerd is configured with)',
        default: '',
        allowedPattern: `^$|${IMAGE_PATTERN}`,
        kind: 'value',
        flag: '--image',
      },
      DRY_RUN,
    ],
  },
  collectLogs: {
    script: 'collect-logs.sh',
    stepName: 'collectLogs',
    description:
      'pod-doctor: collect a node log bundle (eks-log-collector.sh or built-in) and upload it to the evidence bucket. Last output line is JSON.',
    timeoutSeconds: 600,
    parameters: [
      {
        name: 'Bucket',
        description: 'Evidence bucket',
        default: '',
        allowedPattern: '^$|^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$',
        kind: 'value',
        flag: '--bucket',
      },
      {
        name: 'Prefix',
        description: 'Key prefix for the bundle (incident id)',
        default: '',
        allowedPattern: '^$|^[A-Za-z0-9][A-Za-z0-9/_.=-]{0,200}$',
        kind: 'value',
        flag: '--prefix',
      },
      DRY_RUN,
    ],
  },
  restartRuntime: {
    script: 'restart-runtime.sh',
    stepName: 'restartRuntime',
    description:
      'pod-doctor: restart kubelet and/or containerd and verify health. Disruptive: only run after approval. Last output line is JSON.',
    timeoutSeconds: 300,
    parameters: [
      {
        name: 'Target',
        description: 'kubelet, containerd or both',
        default: 'kubelet',
        allowedPattern: '^(kubelet|containerd|both)$',
        kind: 'value',
        flag: '--target',
      },
      DRY_RUN,
    ],
  },
} as const satisfies Record<string, NodeCommandSpec>;

export type NodeCommandName = keyof typeof NODE_COMMANDS;

const LIB_EOF = 'POD_DOCTOR_LIB_EOF';
const SCRIPT_EOF = 'POD_DOCTOR_SCRIPT_EOF';
/** SSM's limit for the content of a Command document. */
export const MAX_DOCUMENT_BYTES = 64 * 1024;

/** Thrown when a script cannot be embedded safely. */
export class DocumentBuildError extends Error {
  override readonly name = 'DocumentBuildError';
}

/**
 * The `runCommand` lines: POSIX sh (the agent's shell) that writes lib.sh and the script into a
 * private temporary directory and runs the script with flags built from the SSM_* variables.
 */
export function buildRunCommand(spec: NodeCommandSpec, lib: string, script: string): string[] {
  for (const [what, text] of [
    ['lib.sh', lib],
    [spec.script, script],
  ] as const) {
    if (text.includes('{{')) throw new DocumentBuildError(`${what} contains "{{", which SSM would read as a parameter`);
    if (text.split('\n').some((l) => l === LIB_EOF || l === SCRIPT_EOF)) {
      throw new DocumentBuildError(`${what} contains a heredoc delimiter line`);
    }
  }
  const lines: string[] = [
    'set -eu',
    "# Agents older than 3.3.2746 export no SSM_* variables: fall back to the interpolated value, which the parameter's allowedPattern keeps free of quotes and metacharacters.",
  ];
  for (const p of spec.parameters) {
    lines.push(`[ -n "\${SSM_${p.name}+x}" ] || SSM_${p.name}='{{ ${p.name} }}'`);
  }
  lines.push(
    'd=$(mktemp -d /tmp/pod-doctor.XXXXXX)',
    'trap \'rm -rf "$d"\' EXIT',
    `cat > "$d/lib.sh" <<'${LIB_EOF}'`,
    ...lib.replace(/\n$/, '').split('\n'),
    LIB_EOF,
    `cat > "$d/${spec.script}" <<'${SCRIPT_EOF}'`,
    ...script.replace(/\n$/, '').split('\n'),
    SCRIPT_EOF,
    'set --',
  );
  for (const p of spec.parameters) {
    lines.push(
      p.kind === 'switch'
        ? `[ "$SSM_${p.name}" != true ] || set -- "$@" ${p.flag}`
        : `[ -z "$SSM_${p.name}" ] || set -- "$@" ${p.flag} "$SSM_${p.name}"`,
    );
  }
  lines.push(`bash "$d/${spec.script}" "$@"`);
  return lines;
}

/** The document content (schema 2.2) for one node command. */
export function buildDocumentContent(spec: NodeCommandSpec, lib: string, script: string): Record<string, unknown> {
  const content = {
    schemaVersion: '2.2',
    description: spec.description,
    parameters: Object.fromEntries(
      spec.parameters.map((p) => [
        p.name,
        {
          type: 'String',
          description: p.description,
          default: p.default,
          allowedPattern: p.allowedPattern,
          interpolationType: 'ENV_VAR',
        },
      ]),
    ),
    mainSteps: [
      {
        action: 'aws:runShellScript',
        name: spec.stepName,
        precondition: { StringEquals: ['platformType', 'Linux'] },
        inputs: { timeoutSeconds: String(spec.timeoutSeconds), runCommand: buildRunCommand(spec, lib, script) },
      },
    ],
  };
  const size = Buffer.byteLength(JSON.stringify(content));
  if (size > MAX_DOCUMENT_BYTES) {
    throw new DocumentBuildError(`${spec.script}: document is ${size} bytes, over SSM's ${MAX_DOCUMENT_BYTES}`);
  }
  return content;
}
