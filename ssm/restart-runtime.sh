#!/usr/bin/env bash
# Restarts kubelet and/or containerd and verifies they come back healthy. Disruptive: running pods
# keep running, but new pods wait until kubelet is back. pod-doctor only runs it after approval.
#
# Last line of stdout: {"status":"restarted"|"would-restart"|"failed","target":...,"healthy":...}
#
# Environment: SYSTEMCTL (default systemctl), CONTAINERD_ADDRESS, KUBELET_HEALTHZ
#   (default http://127.0.0.1:10248/healthz), HEALTH_TIMEOUT seconds (default 120).
set -euo pipefail

here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
# shellcheck source=ssm/lib.sh
. "$here/lib.sh"

SYSTEMCTL=${SYSTEMCTL:-systemctl}
CONTAINERD_ADDRESS=${CONTAINERD_ADDRESS:-/run/containerd/containerd.sock}
KUBELET_HEALTHZ=${KUBELET_HEALTHZ:-http://127.0.0.1:10248/healthz}
HEALTH_TIMEOUT=${HEALTH_TIMEOUT:-120}

target=''
dry_run=false
while [ $# -gt 0 ]; do
  case $1 in
  --target)
    if [ $# -lt 2 ] || ! [[ $2 =~ ^(kubelet|containerd|both)$ ]]; then die "--target must be kubelet, containerd or both"; fi
    target=$2
    shift
    ;;
  --dry-run) dry_run=true ;;
  -h | --help)
    echo "Usage: restart-runtime.sh --target kubelet|containerd|both [--dry-run]"
    exit 0
    ;;
  *) die "unknown argument: $1" ;;
  esac
  shift
done
[ -n "$target" ] || die "--target is required"

result() { # status healthy message
  printf '{"status":%s,"target":%s,"healthy":%s,"dryRun":%s,"message":%s}\n' \
    "$(json_str "$1")" "$(json_str "$target")" "$2" "$dry_run" "$(json_str "$3")"
}

units=()
case $target in
kubelet) units=(kubelet) ;;
containerd) units=(containerd kubelet) ;; # kubelet reconnects faster when restarted after its runtime
both) units=(containerd kubelet) ;;
esac

if [ "$dry_run" = true ]; then
  result would-restart false "would restart ${units[*]}"
  exit 0
fi

containerd_healthy() { ctr --address "$CONTAINERD_ADDRESS" version >/dev/null 2>&1; }
kubelet_healthy() { [ "$(curl -fsS --max-time 3 "$KUBELET_HEALTHZ" 2>/dev/null)" = ok ]; }

for unit in "${units[@]}"; do
  log "restarting $unit"
  "$SYSTEMCTL" restart "$unit" || {
    result failed false "systemctl restart $unit failed"
    exit 1
  }
done

deadline=$((SECONDS + HEALTH_TIMEOUT))
while :; do
  ok=true
  for unit in "${units[@]}"; do
    "$SYSTEMCTL" is-active --quiet "$unit" || ok=false
  done
  if [[ " ${units[*]} " == *" containerd "* ]]; then containerd_healthy || ok=false; fi
  if [[ " ${units[*]} " == *" kubelet "* ]]; then kubelet_healthy || ok=false; fi
  if [ "$ok" = true ]; then
    result restarted true "${units[*]} restarted and healthy"
    exit 0
  fi
  if [ "$SECONDS" -ge "$deadline" ]; then
    result failed false "${units[*]} not healthy ${HEALTH_TIMEOUT}s after restart"
    exit 1
  fi
  sleep 2
done
