import { randomBytes, randomUUID } from 'node:crypto';
import {
  DescribeSecretCommand,
  GetRandomPasswordCommand,
  GetSecretValueCommand,
  InvalidParameterException,
  PutSecretValueCommand,
  ResourceExistsException,
  ResourceNotFoundException,
  SecretsManagerClient,
  UpdateSecretVersionStageCommand,
} from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';

const CREDENTIALS = { accessKeyId: 'AKIDLOCAL', secretAccessKey: 'local' };
const meta = { $metadata: {} };

interface Version {
  value?: string;
  readonly stages: Set<string>;
}

/**
 * One Secrets Manager secret with its versions and staging labels, as Secrets Manager keeps them
 * (https://docs.aws.amazon.com/secretsmanager/latest/userguide/whats-in-a-secret.html): a label is
 * on at most one version; moving AWSCURRENT puts AWSPREVIOUS on the version that had it; a rotation
 * starts with a version labelled AWSPENDING and no value, which the rotation function fills.
 */
export class LocalSecret {
  private readonly versions = new Map<string, Version>();
  rotationEnabled = true;

  constructor(
    readonly arn: string,
    initial: string,
  ) {
    this.versions.set(randomUUID(), { value: initial, stages: new Set(['AWSCURRENT']) });
  }

  /** The value a label is on. */
  valueAt(stage: string): string | undefined {
    return [...this.versions.values()].find((v) => v.stages.has(stage))?.value;
  }

  /** What RotateSecret does first: a new version labelled AWSPENDING, its token for the rotation function. */
  startRotation(): string {
    const token = randomUUID();
    this.moveLabel('AWSPENDING', token);
    return token;
  }

  /** A client whose calls this secret answers. */
  client(): SecretsManagerClient {
    const sm = new SecretsManagerClient({ region: this.arn.split(':')[3], credentials: CREDENTIALS });
    const mock = mockClient(sm);
    mock.on(DescribeSecretCommand).callsFake(() => ({
      ARN: this.arn,
      RotationEnabled: this.rotationEnabled,
      VersionIdsToStages: Object.fromEntries([...this.versions].map(([id, v]) => [id, [...v.stages]])),
    }));
    mock.on(GetSecretValueCommand).callsFake((i) => this.get(i.VersionId, i.VersionStage));
    mock
      .on(PutSecretValueCommand)
      .callsFake((i) => this.put(String(i.ClientRequestToken), String(i.SecretString), i.VersionStages));
    mock.on(UpdateSecretVersionStageCommand).callsFake((i) => {
      const holder = this.holderOf(String(i.VersionStage));
      if (holder && holder !== i.RemoveFromVersionId)
        throw new InvalidParameterException({
          message: `The staging label ${i.VersionStage} is on ${holder}`,
          ...meta,
        });
      this.moveLabel(String(i.VersionStage), String(i.MoveToVersionId));
      return { ARN: this.arn };
    });
    mock.on(GetRandomPasswordCommand).callsFake((i) => ({
      RandomPassword: randomBytes(96)
        .toString('base64')
        .replace(/[^A-Za-z0-9]/g, '')
        .slice(0, i.PasswordLength ?? 32),
    }));
    return sm;
  }

  private get(versionId?: string, stage = versionId ? undefined : 'AWSCURRENT') {
    const id = versionId ?? this.holderOf(String(stage));
    const v = id ? this.versions.get(id) : undefined;
    if (!v?.value || (stage && !v.stages.has(stage)))
      throw new ResourceNotFoundException({
        message: `Secrets Manager can't find the specified secret value for VersionId: ${versionId ?? ''} staging label: ${stage ?? ''}`,
        ...meta,
      });
    return { ARN: this.arn, VersionId: id, SecretString: v.value, VersionStages: [...v.stages] };
  }

  private put(token: string, value: string, stages: string[] = ['AWSCURRENT']) {
    const existing = this.versions.get(token);
    if (existing?.value !== undefined && existing.value !== value)
      throw new ResourceExistsException({ message: `A version with VersionId ${token} already exists`, ...meta });
    if (!existing) this.versions.set(token, { value, stages: new Set() });
    else existing.value = value;
    for (const s of stages) this.moveLabel(s, token);
    return { ARN: this.arn, VersionId: token };
  }

  private holderOf(stage: string): string | undefined {
    return [...this.versions].find(([, v]) => v.stages.has(stage))?.[0];
  }

  private moveLabel(stage: string, to: string): void {
    const from = this.holderOf(stage);
    if (from) this.versions.get(from)?.stages.delete(stage);
    if (!this.versions.has(to)) this.versions.set(to, { stages: new Set() });
    this.versions.get(to)?.stages.add(stage);
    if (stage === 'AWSCURRENT' && from && from !== to) this.moveLabel('AWSPREVIOUS', from);
  }
}
