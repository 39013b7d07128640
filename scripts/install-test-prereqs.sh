#!/usr/bin/env bash
# Installs the Debian packages the node tier and shellcheck need, when missing. Idempotent.
set -euo pipefail

# binary -> Debian package
declare -A PACKAGES=(
  [containerd]=containerd
  [ctr]=containerd
  [docker-registry]=docker-registry
  [htpasswd]=apache2-utils
  [umoci]=umoci
  [skopeo]=skopeo
  [strace]=strace
  [shellcheck]=shellcheck
  [jq]=jq
  # the HTML report is checked in a real headless browser (test/cli/demo-report.test.ts)
  [chromium]=chromium
)

missing=()
for bin in "${!PACKAGES[@]}"; do
  command -v "$bin" >/dev/null 2>&1 || missing+=("${PACKAGES[$bin]}")
done
if [ "${#missing[@]}" -eq 0 ]; then
  exit 0
fi
mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "pod-doctor tests need these Debian packages: ${missing[*]}" >&2
  echo "install them with: sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "installing test prerequisites: ${missing[*]}" >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
