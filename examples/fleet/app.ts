#!/usr/bin/env node
/**
 * pod-doctor for an AWS Organization: one hub (account 111111111111, eu-west-1) and spokes in two
 * member accounts × two Regions, both as plain CDK stacks and as a service-managed StackSet. Every
 * id comes from cdk.json (`fleet`).
 *
 *   cd examples/fleet && npx cdk synth
 *
 * In your own app, import from 'pod-doctor' instead of '../../lib/index.js'.
 */
import { App } from 'aws-cdk-lib';
import { buildFleet, type FleetSettings } from './fleet-app.js';

const app = new App();
buildFleet(app, app.node.getContext('fleet') as FleetSettings);
app.synth();
