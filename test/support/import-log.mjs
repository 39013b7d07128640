// `node --import tsx --import ./test/support/import-log.mjs …`: logs every module the process resolves
// (see import-log-hooks.mjs).
import { register } from 'node:module';

register(new URL('./import-log-hooks.mjs', import.meta.url));
