#!/usr/bin/env bash
# Runs every test tier and prints one closing line: "N passed, N failed".
# Tiers: static (lint, function and file size, typecheck, shellcheck, cdk synth with cdk-nag, the public API report
# etc/pod-doctor.api.md) and the vitest projects
# unit, handlers, infra, workflow, node (real containerd + registry), cli, package (npm pack → empty CDK app).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

passed=0
failed=0
logs=$(mktemp -d /tmp/pod-doctor-test.XXXXXX)

check() {
  local name=$1
  shift
  if "$@" >"$logs/$name.log" 2>&1; then
    passed=$((passed + 1))
    echo "✓ $name"
  else
    failed=$((failed + 1))
    echo "✗ $name"
    tail -n 40 "$logs/$name.log" | sed 's/^/    /'
  fi
}

if [ ! -d node_modules ]; then
  npm ci --no-audit --no-fund
fi

check test-prerequisites bash scripts/install-test-prereqs.sh
check lint npx biome check .
check function-and-file-size bash scripts/long-functions.sh
check typecheck npx tsc --noEmit -p .
check shellcheck bash -c 'shellcheck ssm/*.sh scripts/*.sh .ci/run'
synth_check() {
  local out rc
  out=$(mktemp -d)
  npx cdk synth -q -o "$out"
  rc=$?
  rm -rf "$out"
  return "$rc"
}
check cdk-synth-with-cdk-nag synth_check
check public-api-report bash scripts/api-report.sh

npx vitest run --reporter=default --reporter=json --outputFile="$logs/vitest.json" "$@"
vitest_rc=$?
# shellcheck disable=SC2016 # JavaScript, not shell
counts=$(node -e '
  const fs = require("node:fs");
  try {
    const r = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
    // A file that fails to load has no test results but still failed.
    const broken = r.testResults.filter((f) => f.status === "failed" && f.assertionResults.length === 0).length;
    console.log(`${r.numPassedTests} ${r.numFailedTests + broken}`);
  } catch { console.log("0 1"); }
' "$logs/vitest.json")
read -r vp vf <<<"$counts"
if [ "$vitest_rc" -ne 0 ] && [ "$vf" -eq 0 ]; then vf=1; fi
passed=$((passed + vp))
failed=$((failed + vf))

echo "logs: $logs"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
