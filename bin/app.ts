#!/usr/bin/env node
import { createApp } from '../lib/app.js';
import { ConfigError } from '../lib/config.js';

try {
  createApp().app.synth();
} catch (e) {
  if (e instanceof ConfigError) {
    console.error(e.message);
    process.exit(1);
  }
  throw e;
}
