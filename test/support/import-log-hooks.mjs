// Module hooks (node:module register) that append every module URL a process resolves to the file
// named by POD_DOCTOR_IMPORT_LOG: tests read it to see what a command loaded.
import { appendFileSync } from 'node:fs';

export async function resolve(specifier, context, nextResolve) {
  const result = await nextResolve(specifier, context);
  if (process.env.POD_DOCTOR_IMPORT_LOG) appendFileSync(process.env.POD_DOCTOR_IMPORT_LOG, `${result.url}\n`);
  return result;
}
