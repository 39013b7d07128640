#!/usr/bin/env node
// The published entry: registers tsx so the TypeScript CLI runs without a build step.
import { register } from 'tsx/esm/api';

register();
await import('./pod-doctor.ts');
