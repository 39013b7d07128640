#!/usr/bin/env bash
# Collects a node log bundle for an incident and uploads it to the evidence bucket. Runs the node's
# own eks-log-collector.sh when present (AL2023 ships it), else a built-in fallback. Never downloads
# anything. Refuses when the bundle directory has less than 1.5 GB free.
#
# Last line of stdout: {"status":"uploaded"|"collected"|"would-collect"|"failed","key":...,"sha256":...,"bytes":...,"collector":...}
#
# The bundle goes to s3://BUCKET/nodes/<aws:userid>/PREFIX/<bundle>: aws:userid is the node's role
# session ("<role id>:<instance id>"), the only prefix the bucket lets a node write, as a new object
# only (the bucket refuses any write without If-None-Match: *).
#
# Environment: LOG_COLLECTOR (default /etc/eks/log-collector-script/eks-log-collector.sh),
#   WORK_DIR (default /var/tmp), MIN_FREE_KB (default 1572864 = 1.5 GB),
#   UPLOAD_CMD (default: aws s3api put-object --if-none-match '*'; called as UPLOAD_CMD FILE s3://BUCKET/KEY),
#   CALLER_ID_CMD (default: aws sts get-caller-identity --query UserId --output text), JOURNAL_LINES
#   (default 5000), COLLECTOR_OUTPUT_DIR (where eks-log-collector.sh leaves its bundle, default /var/log).
set -euo pipefail

here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
# shellcheck source=ssm/lib.sh
. "$here/lib.sh"

LOG_COLLECTOR=${LOG_COLLECTOR:-/etc/eks/log-collector-script/eks-log-collector.sh}
WORK_DIR=${WORK_DIR:-/var/tmp}
MIN_FREE_KB=${MIN_FREE_KB:-1572864}
JOURNAL_LINES=${JOURNAL_LINES:-5000}
COLLECTOR_OUTPUT_DIR=${COLLECTOR_OUTPUT_DIR:-/var/log}

bucket=''
prefix=''
dry_run=false
while [ $# -gt 0 ]; do
  case $1 in
  --bucket)
    if [ $# -lt 2 ] || ! [[ $2 =~ ^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$ ]]; then die "--bucket needs an S3 bucket name"; fi
    bucket=$2
    shift
    ;;
  --prefix)
    if [ $# -lt 2 ] || ! [[ $2 =~ ^[A-Za-z0-9][A-Za-z0-9/_.=-]{0,200}$ ]] || [[ $2 == *..* ]]; then die "--prefix needs an S3 key prefix of [A-Za-z0-9/_.=-]"; fi
    prefix=${2%/}
    shift
    ;;
  --dry-run) dry_run=true ;;
  -h | --help)
    echo "Usage: collect-logs.sh [--bucket BUCKET --prefix PREFIX] [--dry-run]"
    exit 0
    ;;
  *) die "unknown argument: $1" ;;
  esac
  shift
done

result() { # status key sha256 bytes collector message
  printf '{"status":%s,"key":%s,"sha256":%s,"bytes":%s,"collector":%s,"message":%s}\n' \
    "$(json_str "$1")" "$(json_str "$2")" "$(json_str "$3")" "${4:-0}" "$(json_str "$5")" "$(json_str "$6")"
}

collector=fallback
if [ -x "$LOG_COLLECTOR" ]; then collector=eks-log-collector; fi

free_kb=$(df -Pk "$WORK_DIR" | awk 'NR == 2 { print $4 }')
if [ "$free_kb" -lt "$MIN_FREE_KB" ]; then
  result failed '' '' 0 "$collector" "refusing to collect: $((free_kb / 1024)) MiB free in $WORK_DIR, need $((MIN_FREE_KB / 1024)) MiB"
  exit 1
fi
if [ "$dry_run" = true ]; then
  result would-collect '' '' 0 "$collector" "would collect with $collector into $WORK_DIR"
  exit 0
fi

stamp=$(date -u +%Y%m%dT%H%M%SZ)
host=$(hostname -s 2>/dev/null || echo node)
out=$(mktemp -d "$WORK_DIR/pod-doctor-logs.XXXXXX")
trap 'rm -rf "$out"' EXIT

if [ "$collector" = eks-log-collector ]; then
  log "running $LOG_COLLECTOR"
  # The AWS collector writes /var/log/eks_<instance>_<time>.tar.gz and prints its path.
  before=$(find "$COLLECTOR_OUTPUT_DIR" -maxdepth 1 -name 'eks_*.tar.gz' 2>/dev/null | sort)
  "$LOG_COLLECTOR" >"$out/collector.log" 2>&1 || die "eks-log-collector.sh failed: $(tail -n 3 "$out/collector.log")"
  bundle=$(comm -13 <(printf '%s\n' "$before") <(find "$COLLECTOR_OUTPUT_DIR" -maxdepth 1 -name 'eks_*.tar.gz' 2>/dev/null | sort) | tail -n 1)
  [ -n "$bundle" ] || die "eks-log-collector.sh produced no bundle"
else
  log "collecting with the built-in fallback"
  b="$out/bundle"
  mkdir -p "$b"
  run() { # file command...
    local f=$1
    shift
    "$@" >"$b/$f" 2>&1 || true
  }
  for unit in kubelet containerd sandbox-image; do
    command -v journalctl >/dev/null && run "journal-$unit.log" journalctl -u "$unit" -n "$JOURNAL_LINES" --no-pager
  done
  run df.txt df -h
  run df-inodes.txt df -i
  run ps.txt ps -eLo pid,ppid,stat,nlwp,etime,comm --sort=-nlwp
  run pid-limits.txt cat /proc/sys/kernel/pid_max /proc/sys/kernel/threads-max
  run uname.txt uname -a
  run os-release.txt cat /etc/os-release
  command -v dmesg >/dev/null && run dmesg.txt dmesg -T
  command -v ctr >/dev/null && run images.txt ctr --namespace k8s.io images ls
  for f in /etc/containerd/config.toml /etc/kubernetes/kubelet/config.json /etc/eks/release; do
    [ -r "$f" ] && cp "$f" "$b/$(echo "${f#/}" | tr / _)"
  done
  if [ -d /var/log/aws-routed-eni ]; then
    mkdir -p "$b/aws-routed-eni"
    find /var/log/aws-routed-eni -maxdepth 1 -type f -name '*.log' -exec tail -n "$JOURNAL_LINES" {} \; >"$b/aws-routed-eni/tail.log" 2>/dev/null || true
  fi
  bundle="$out/pod-doctor_${host}_${stamp}.tar.gz"
  tar -C "$b" -czf "$bundle" .
fi

sha=$(sha256sum "$bundle" | awk '{ print $1 }')
bytes=$(stat -c %s "$bundle")
if [ -z "$bucket" ]; then
  kept="$WORK_DIR/$(basename "$bundle")"
  [ "$bundle" = "$kept" ] || cp "$bundle" "$kept"
  result collected "$kept" "$sha" "$bytes" "$collector" "bundle kept on the node (no bucket given)"
  exit 0
fi
put_new() { # FILE s3://BUCKET/KEY: a new object only
  local rest=${2#s3://}
  aws s3api put-object --if-none-match '*' --bucket "${rest%%/*}" --key "${rest#*/}" --body "$1" >/dev/null
}
# shellcheck disable=SC2086 # CALLER_ID_CMD is a command with its flags
caller=$(${CALLER_ID_CMD:-aws sts get-caller-identity --query UserId --output text}) || die "cannot read the node's identity (sts get-caller-identity)"
[[ $caller =~ ^[A-Z0-9]{5,128}:[A-Za-z0-9_.@=,-]{1,64}$ ]] || die "unexpected caller id: $caller"
key="nodes/$caller/${prefix:+$prefix/}$(basename "$bundle")"
upload=${UPLOAD_CMD:-put_new}
# shellcheck disable=SC2086 # UPLOAD_CMD is a command with its flags
$upload "$bundle" "s3://$bucket/$key" >&2 || die "upload to s3://$bucket/$key failed"
result uploaded "$key" "$sha" "$bytes" "$collector" "uploaded to s3://$bucket/$key"
