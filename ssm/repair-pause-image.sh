#!/usr/bin/env bash
# Repairs the sandbox (pause) image on an EKS node in place: re-imports it from the AMI's tarball
# (AL2023) or pulls it with an ECR token from the instance role (AL2 / custom AMIs), then pins it
# so image GC never removes it again. Idempotent; --dry-run changes nothing.
#
# Last line of stdout: {"status":"repaired"|"healthy"|"would-repair"|"failed","image":...,"method":...,"pinned":...}
# Exit 0 for repaired / healthy / would-repair; non-zero otherwise.
#
# Environment (so it can be pointed at any containerd):
#   CONTAINERD_ADDRESS  default /run/containerd/containerd.sock
#   CONTAINERD_CONFIG   default /etc/containerd/config.toml
#   PAUSE_TAR           default /etc/eks/pause.tar
#   ECR_PASSWORD_CMD    default: aws ecr get-login-password --region <region of the image>
#   CTR_PULL_ARGS       extra `ctr images pull` arguments, default none
set -euo pipefail

here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
# shellcheck source=ssm/lib.sh
. "$here/lib.sh"

CONTAINERD_ADDRESS=${CONTAINERD_ADDRESS:-/run/containerd/containerd.sock}
CONTAINERD_CONFIG=${CONTAINERD_CONFIG:-/etc/containerd/config.toml}
PAUSE_TAR=${PAUSE_TAR:-/etc/eks/pause.tar}
CTR_PULL_ARGS=${CTR_PULL_ARGS:-}
LOCK_FILE=${LOCK_FILE:-/run/lock/pod-doctor-pause-image.lock}
PULL_TIMEOUT=${PULL_TIMEOUT:-180}
PIN_LABEL=io.cri-containerd.pinned=pinned

usage() {
  cat <<USAGE
Usage: repair-pause-image.sh [--dry-run] [--image REF]
  --dry-run    report what would be done, change nothing
  --image REF  sandbox image to repair (default: the one containerd is configured with)
USAGE
}

dry_run=false
image=''
while [ $# -gt 0 ]; do
  case $1 in
  --dry-run) dry_run=true ;;
  --image)
    [ $# -ge 2 ] || die "--image needs a value"
    image=$2
    shift
    ;;
  -h | --help)
    usage
    exit 0
    ;;
  *)
    usage >&2
    die "unknown argument: $1"
    ;;
  esac
  shift
done

result() { # status method pinned message
  printf '{"status":%s,"image":%s,"method":%s,"pinned":%s,"dryRun":%s,"message":%s}\n' \
    "$(json_str "$1")" "$(json_str "$image")" "$(json_str "$2")" "$3" "$dry_run" "$(json_str "$4")"
}
fail() { # method message [exit code]
  log "$2"
  result failed "$1" "$(pinned_json)" "$2"
  exit "${3:-1}"
}

ctr_() { ctr --address "$CONTAINERD_ADDRESS" --namespace k8s.io "$@"; }

# Each check reads ctr's whole output before matching: with pipefail, `ctr ... | grep -q` fails
# whenever grep exits first and ctr dies of SIGPIPE, which reports a present image as missing.
image_line() { # the `ctr images ls` row of $image, empty when absent
  local out
  out=$(ctr_ images ls 2>/dev/null) || return 0
  awk -v ref="$image" '$1 == ref' <<<"$out"
}
present() { [ -n "$(image_line)" ]; }
pinned() { [[ $(image_line) == *"$PIN_LABEL"* ]]; }
pinned_json() { if present && pinned; then printf true; else printf false; fi; }
# All of the image's content is in the content store (a GC can leave a dangling record behind).
complete() {
  local out
  out=$(ctr_ images check 2>/dev/null) || return 1
  [[ $(awk -v ref="$image" '$1 == ref' <<<"$out") == *complete* ]]
}

# A private directory with <host>/hosts.toml sending the registry credentials as a Basic header
# (ECR accepts AWS:<token>). printf is a builtin: the secret never appears in a process's argv.
write_registry_auth() { # host password → directory
  local host=$1 dir scheme=https
  case " $CTR_PULL_ARGS " in *" --plain-http "*) scheme=http ;; esac
  dir=$(mktemp -d "${TMPDIR:-/tmp}/pod-doctor-auth.XXXXXX")
  chmod 700 "$dir"
  mkdir -m 700 "$dir/$host"
  (
    umask 077
    printf 'server = "%s://%s"\n[host."%s://%s"]\n  capabilities = ["pull", "resolve"]\n  [host."%s://%s".header]\n    Authorization = ["Basic %s"]\n' \
      "$scheme" "$host" "$scheme" "$host" "$scheme" "$host" "$(printf 'AWS:%s' "$2" | base64 -w0)" >"$dir/$host/hosts.toml"
  )
  printf '%s' "$dir"
}
# Output with the token (and its Basic form) blanked out, in case a registry or ctr echoes it.
redact() {
  local s=$1
  if [ -n "${password:-}" ]; then
    s=${s//"$password"/***}
    s=${s//"$(printf 'AWS:%s' "$password" | base64 -w0)"/***}
  fi
  printf '%s' "$s"
}

ecr_region() { # region of an ECR registry host, empty for other registries
  local host=${image%%/*}
  if [[ $host =~ ^[0-9]{12}\.dkr\.ecr(-fips)?\.([a-z0-9-]+)\.amazonaws\.com(\.cn)?$ ]]; then
    echo "${BASH_REMATCH[2]}"
  fi
}

# --- what to repair ---------------------------------------------------------------------------
if [ "$(os_id)" = bottlerocket ]; then
  image=${image:-unknown}
  fail bottlerocket-restart "Bottlerocket ships its own pause image; repair it by restarting kubelet (approval-gated), not in place" 3
fi
if [ -n "$image" ] && ! valid_image "$image"; then
  bad=$image
  image=''
  fail none "refusing an image reference with unexpected characters: $(printf '%q' "$bad")" 2
fi
# The image to restore is the node's own configuration, never the caller's: --image may only name it.
configured=$(configured_sandbox_image "$CONTAINERD_CONFIG")
configured=${configured:-$(kubelet_sandbox_image)}
if [ -z "$configured" ]; then
  image=${image:-}
  fail none "no sandbox image configured in $CONTAINERD_CONFIG nor by kubelet --pod-infra-container-image" 2
fi
valid_image "$configured" || fail none "the configured sandbox image has unexpected characters: $(printf '%q' "$configured")" 2
configured=$(normalize_image "$configured")
if [ -n "$image" ] && [ "$(normalize_image "$image")" != "$configured" ]; then
  image=$(normalize_image "$image")
  fail none "refusing $image: it is not this node's sandbox image ($configured)" 2
fi
image=$configured
[ -S "$CONTAINERD_ADDRESS" ] || fail none "containerd socket $CONTAINERD_ADDRESS not found (is containerd running?)" 2

# Two runs (an SSM retry racing the first) must not interleave.
if [ "$dry_run" = false ] && command -v flock >/dev/null 2>&1; then
  mkdir -p "$(dirname "$LOCK_FILE")"
  exec 9>"$LOCK_FILE"
  flock -w 300 9 || fail none "another repair holds $LOCK_FILE" 2
fi

if present && complete; then
  if pinned; then
    result healthy none true "$image is present and pinned"
    exit 0
  fi
  method=pin
elif [ -r "$PAUSE_TAR" ]; then
  method=reimport
elif [ -n "$(ecr_region)" ] || [ -n "${ECR_PASSWORD_CMD:-}" ]; then
  method=ecr-pull
else
  method=pull
fi

if [ "$dry_run" = true ]; then
  result would-repair "$method" "$(pinned_json)" "would $method $image and pin it"
  exit 0
fi

# --- repair -----------------------------------------------------------------------------------
case $method in
reimport)
  import_args=()
  if uses_soci "$CONTAINERD_CONFIG"; then import_args+=(--snapshotter soci); fi
  log "re-importing $image from $PAUSE_TAR"
  if ! out=$(ctr_ images import ${import_args[@]+"${import_args[@]}"} "$PAUSE_TAR" 2>&1); then
    fail reimport "import of $PAUSE_TAR failed: $out"
  fi
  if ! present; then
    # The tarball may carry the image under another name (e.g. only the digest ref): tag it.
    imported=$(printf '%s\n' "$out" | awk '!found && /^unpacking / && $3 ~ /^\(sha256:/ { print $2; found = 1 }')
    if [ -n "$imported" ] && valid_image "$imported"; then
      ctr_ images tag "$imported" "$image" >/dev/null || fail reimport "could not tag $imported as $image"
    else
      fail reimport "$PAUSE_TAR does not contain $image"
    fi
  fi
  ;;
ecr-pull | pull)
  host_args=()
  if [ "$method" = ecr-pull ]; then
    region=$(ecr_region)
    cmd=${ECR_PASSWORD_CMD:-aws ecr get-login-password --region ${region}}
    log "getting a registry token for $image"
    if ! password=$(bash -c "$cmd" 2>/dev/null) || [ -z "$password" ]; then
      fail ecr-pull "could not get an ECR token (${cmd%% *} failed): does the node role allow ecr:GetAuthorizationToken?"
    fi
    # Never on a command line (/proc/<pid>/cmdline is world-readable): the credentials go into a
    # containerd hosts.toml (0600, in a 0700 directory removed on exit) that ctr reads with --hosts-dir.
    hosts_dir=$(write_registry_auth "${image%%/*}" "$password")
    trap 'rm -rf "$hosts_dir"' EXIT
    host_args=(--hosts-dir "$hosts_dir")
  fi
  log "pulling $image"
  # shellcheck disable=SC2086 # CTR_PULL_ARGS is a list of flags by contract
  if ! out=$(timeout "$PULL_TIMEOUT" ctr --address "$CONTAINERD_ADDRESS" --namespace k8s.io images pull $CTR_PULL_ARGS ${host_args[@]+"${host_args[@]}"} "$image" 2>&1); then
    out=$(redact "$out")
    reason=$(printf '%s\n' "$out" | grep -m1 -oiE '401 Unauthorized|403 Forbidden|no basic auth credentials|not found|i/o timeout|connection refused|no such host|x509: [^"]*' || true)
    case $reason in
    *401* | *[Uu]nauthorized* | *"no basic auth"*)
      fail "$method" "pull of $image failed: registry answered 401 Unauthorized (token rejected: check the node role's ECR read policy and the repository policy)" ;;
    *403*) fail "$method" "pull of $image failed: 403 Forbidden (repository or endpoint policy denies the node role)" ;;
    '') fail "$method" "pull of $image failed: $(printf '%s' "$out" | tail -n 3 | tr '\n' ' ')" ;;
    *) fail "$method" "pull of $image failed: $reason" ;;
    esac
  fi
  ;;
pin) log "$image present but not pinned" ;;
esac

ctr_ images label "$image" "$PIN_LABEL" >/dev/null || fail "$method" "could not pin $image"

# --- verify -----------------------------------------------------------------------------------
if ! present || ! pinned; then fail "$method" "$image still missing or unpinned after $method"; fi
result repaired "$method" true "$image restored by $method and pinned"
