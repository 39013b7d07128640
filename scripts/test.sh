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
  local name=$1 start=$SECONDS
  shift
  if "$@" >"$logs/$name.log" 2>&1; then
    passed=$((passed + 1))
    echo "✓ $name ($((SECONDS - start)) s)"
  else
    failed=$((failed + 1))
    echo "✗ $name ($((SECONDS - start)) s)"
    tail -n 40 "$logs/$name.log" | sed 's/^/    /'
  fi
}
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"

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

vitest_start=$SECONDS
npx vitest run --reporter=default --reporter=json --outputFile="$logs/vitest.json" "$@"
vitest_rc=$?
echo "vitest: $((SECONDS - vitest_start)) s wall; load average now: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
# Time per tier: the sum of its files' durations (files of a tier run in parallel, so more than its wall time).
# shellcheck disable=SC2016 # JavaScript, not shell
node -e '
  const fs = require("node:fs");
  try {
    const r = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
    const tiers = {};
    for (const f of r.testResults) {
      const tier = (/\/test\/([^/]+)\//.exec(f.name) || [])[1] || "other";
      const t = (tiers[tier] ??= { files: 0, ms: 0, tests: 0 });
      t.files += 1;
      t.ms += Math.max(0, (f.endTime ?? 0) - (f.startTime ?? 0));
      t.tests += f.assertionResults.length;
    }
    for (const [tier, t] of Object.entries(tiers))
      console.log(`tier ${tier}: ${(t.ms / 1000).toFixed(0)} s file time, ${t.files} files, ${t.tests} tests`);
  } catch {}
' "$logs/vitest.json"
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
