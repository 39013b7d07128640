import { withLambdaEnv } from '../../local/lambda-env.js';

// Imported first by a test that imports handler modules: each handler parses its environment at start-up
// (lambdas/aws/runtime/environment.ts), so the variables Lambda and lib/ give a deployed function must be
// there before the handler module is evaluated. The test's own values stay.
withLambdaEnv();
