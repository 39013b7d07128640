#!/usr/bin/env bash
# Functions longer than MAX_LINES (default 60, blank lines not counted) and files longer than
# MAX_FILE_LINES (default 400) in the runtime and infrastructure code, longest first. The function
# lengths come from Biome's noExcessiveLinesPerFunction rule (scripts/function-length.biome.json).
# Prints nothing and exits 0 when everything is within bounds; otherwise lists them and exits 1.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
max=${MAX_LINES:-60}
max_file=${MAX_FILE_LINES:-400}
dirs=(lib lambdas cli demo local)
config=$(mktemp -d)
trap 'rm -rf "$config"' EXIT
sed "s/\"maxLines\": 60/\"maxLines\": $max/" scripts/function-length.biome.json >"$config/biome.json"
functions=$(npx biome lint --config-path="$config/biome.json" --max-diagnostics=none "${dirs[@]}" 2>&1 |
  awk '/lint\/complexity\/noExcessiveLinesPerFunction/ { where = $1 }
       /too many lines \(/ { match($0, /\(([0-9]+)\)/); n = substr($0, RSTART + 1, RLENGTH - 2); print n "\t" where }' |
  sort -rn)
files=$(find "${dirs[@]}" -name '*.ts' -exec wc -l {} + | awk -v m="$max_file" '$2 != "total" && $1 > m { print $1 "\t" $2 }' | sort -rn)
[ -n "$functions" ] && printf 'functions over %s lines:\n%s\n' "$max" "$functions"
[ -n "$files" ] && printf 'files over %s lines:\n%s\n' "$max_file" "$files"
[ -z "$functions$files" ]
