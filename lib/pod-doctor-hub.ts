import { Arn, Aspects, Duration, type IAspect, Stack, Token } from 'aws-cdk-lib';
import { GraphWidget } from 'aws-cdk-lib/aws-cloudwatch';
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import { CfnRole, type Grant, Grant as IamGrant, type IGrantable, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct, type IConstruct } from 'constructs';
import { FLEET_NAME, type FleetMember, fleetMembers, hubRolePath, spokeRoleName } from '../lambdas/core/fleet/fleet.js';
import { ConfigError } from './config.js';
import { FleetBus } from './constructs/fleet/fleet-bus.js';
import { search } from './constructs/operations-dashboard.js';
import { PodDoctor, type PodDoctorProps } from './pod-doctor.js';

/** The fleet a hub serves. */
export interface FleetProps {
  /** The fleet's name: lower-case letters, digits and hyphens, at most 20 (role names, paths, ExternalId). */
  readonly name: string;
  /** The organization of the hub and its members (`o-…`): the bus admits it only. */
  readonly organizationId: string;
  /** The accounts and Regions the hub acts in; a removed account stops being acted on. */
  readonly members: readonly FleetMember[];
}

/** Props of {@link PodDoctorHub}. */
export interface PodDoctorHubProps extends PodDoctorProps {
  /** The fleet: its name, the organization and the member accounts the hub serves. */
  readonly fleet: FleetProps;
}

/** Puts every Lambda role of the hub under the fleet's IAM path: the spoke roles trust that path only. */
class HubRolePath implements IAspect {
  constructor(private readonly path: string) {}

  visit(node: IConstruct): void {
    if (!(node instanceof CfnRole)) return;
    const trust = JSON.stringify(Stack.of(node).resolve(node.assumeRolePolicyDocument));
    if (trust.includes(new ServicePrincipal('lambda.amazonaws.com').service)) node.path = this.path;
  }
}

/**
 * pod-doctor for an organization: everything {@link PodDoctor} is (workflow, incident store, evidence,
 * notifications, approvals, dashboard; its own account's clusters as a local spoke) plus the fleet
 * bus the member accounts' spokes send to, and the right to assume the spoke roles of its members.
 */
export class PodDoctorHub extends Construct {
  /** The hub's own pod-doctor, which runs the fleet's incidents. */
  readonly podDoctor: PodDoctor;
  /** The bus spokes put events on (its ARN goes to every spoke). */
  readonly bus: IEventBus;
  /**
   * The fleet's bus and the rules that bring spoke events to the hub's pod-doctor.
   * @internal
   */
  readonly fleetBus: FleetBus;
  /** The fleet this hub serves. */
  readonly fleet: FleetProps;

  constructor(scope: Construct, id: string, props: PodDoctorHubProps) {
    super(scope, id);
    const { fleet, ...podDoctorProps } = props;
    if (!FLEET_NAME.test(fleet.name))
      throw new ConfigError([`fleet.name: "${fleet.name}" must match ${FLEET_NAME} (it is part of role names)`]);
    if (!/^o-[a-z0-9]{10,32}$/.test(fleet.organizationId))
      throw new ConfigError([`fleet.organizationId: "${fleet.organizationId}" is not an organization id (o-…)`]);
    try {
      fleetMembers(fleet.members);
    } catch (e) {
      throw new ConfigError([`fleet.members: ${(e as Error).message}`]);
    }
    this.fleet = fleet;
    this.podDoctor = new PodDoctor(this, 'PodDoctor', podDoctorProps);
    const { podDoctor } = this;
    this.fleetBus = new FleetBus(this, 'Fleet', {
      organizationId: fleet.organizationId,
      members: fleet.members,
      incidentTable: podDoctor.incidentTable,
      configStore: podDoctor.configStore,
      evidenceBucket: podDoctor.evidenceBucket,
      workflow: podDoctor.stateMachine,
      historyRetentionDays: podDoctor.config.historyRetentionDays,
      incidentWindowMinutes: podDoctor.config.limits.incidentWindowMinutes,
      logRetention: props.logRetention ?? RetentionDays.THREE_MONTHS,
    });
    this.bus = this.fleetBus.bus;
    Aspects.of(this).add(new HubRolePath(hubRolePath(fleet.name)));
    this.addFleetView();
    for (const fn of Object.values(podDoctor.checks.functions)) this.grantAssumeSpokeRoles(fn);
    this.grantAssumeSpokeRoles(podDoctor.checks.resolveNode);
  }

  /** The fleet's rows on the operations dashboard: incidents, refused events and records read, per account. */
  private addFleetView(): void {
    const hour = Duration.hours(1);
    const widget = (title: string, name: string) =>
      new GraphWidget({ title, left: [search(name, ['account'], 'Sum', hour)], width: 8, height: 6 });
    this.podDoctor.operations.dashboard.addWidgets(
      widget('Fleet: incidents opened per account (hourly)', 'FleetIncidentsOpened'),
      widget('Fleet: events refused per sender account (hourly)', 'FleetEventsRefused'),
      widget('Fleet: log records read per account (signal health, hourly)', 'FleetRecordsReceived'),
    );
  }

  /**
   * The bus ARN spokes are given, as a plain string: it needs the hub stack's account and Region
   * (`env`), as a cross-account reference cannot be a CloudFormation export.
   */
  busArnForSpokes(): string {
    const stack = Stack.of(this);
    if (Token.isUnresolved(stack.account) || Token.isUnresolved(stack.region))
      throw new ConfigError([
        'fleet: the hub stack needs an explicit env (account and Region): spokes address its bus by ARN',
      ]);
    return `arn:${stack.partition === 'aws' || Token.isUnresolved(stack.partition) ? 'aws' : stack.partition}:events:${stack.region}:${stack.account}:event-bus/${this.fleetBus.busName}`;
  }

  /** The spoke role ARNs of every member account and Region. */
  spokeRoleArns(): string[] {
    const stack = Stack.of(this);
    return this.fleet.members.flatMap((m) =>
      m.regions.map((region) =>
        Arn.format(
          {
            service: 'iam',
            region: '',
            account: m.account,
            resource: 'role',
            resourceName: spokeRoleName(this.fleet.name, region),
          },
          stack,
        ),
      ),
    );
  }

  /** Lets `grantee` (a hub function: its role is under the fleet's path) assume the members' spoke roles. */
  grantAssumeSpokeRoles(grantee: IGrantable): Grant {
    return IamGrant.addToPrincipal({ grantee, actions: ['sts:AssumeRole'], resourceArns: this.spokeRoleArns() });
  }
}
