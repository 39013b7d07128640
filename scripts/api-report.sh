#!/usr/bin/env bash
# The public API report, etc/pod-doctor.api.md: lib/index.ts's declarations (emitted by tsc into
# temp/api-dts) read by api-extractor, which bundles its own TypeScript 5. Fails when the public API
# differs from the checked-in report; after a deliberate change: bash scripts/api-report.sh --update
# and commit etc/pod-doctor.api.md with the change.
set -euo pipefail
cd "$(dirname "$0")/.." || exit 1

rm -rf temp/api-dts
node node_modules/typescript/bin/tsc -p tsconfig.api.json
if [ "${1:-}" = "--update" ]; then
  npx api-extractor run --local
else
  npx api-extractor run
fi
