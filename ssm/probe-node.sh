#!/usr/bin/env bash
# Read-only probe of an EKS node for pod-doctor: sandbox image configuration and state, runtime
# versions, OS family, SOCI, image-filesystem disk and inode headroom against kubelet's image GC
# thresholds, PID/thread headroom, zombies, top PID consumers, TCP reachability of ECR on 443.
#
# Last line of stdout: {"findings":[{"id":"node.*","status":"pass|warn|fail","summary":...,"evidence":...}],...}
#
# Environment: CONTAINERD_ADDRESS, CONTAINERD_CONFIG, PAUSE_TAR (as repair-pause-image.sh),
#   KUBELET_CONFIG (default /etc/kubernetes/kubelet/config.json), KUBELET_ARGS (kubelet command line;
#   default read from the running kubelet), PROC (default /proc), OS_RELEASE (default /etc/os-release),
#   PROBE_ENDPOINTS (space-separated host:port list replacing the ECR endpoints derived from the region).
set -euo pipefail

here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
# shellcheck source=ssm/lib.sh
. "$here/lib.sh"

CONTAINERD_ADDRESS=${CONTAINERD_ADDRESS:-/run/containerd/containerd.sock}
CONTAINERD_CONFIG=${CONTAINERD_CONFIG:-/etc/containerd/config.toml}
PAUSE_TAR=${PAUSE_TAR:-/etc/eks/pause.tar}
KUBELET_CONFIG=${KUBELET_CONFIG:-/etc/kubernetes/kubelet/config.json}
PROC=${PROC:-/proc}
CONNECT_TIMEOUT=${CONNECT_TIMEOUT:-3}

region=''
endpoints=()
while [ $# -gt 0 ]; do
  case $1 in
  --region)
    if [ $# -lt 2 ] || ! [[ $2 =~ ^[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-[0-9]$ ]]; then die "--region needs a region code"; fi
    region=$2
    shift
    ;;
  --endpoint)
    if [ $# -lt 2 ] || ! [[ $2 =~ ^[A-Za-z0-9][A-Za-z0-9.-]{0,252}:[0-9]{1,5}$ ]]; then die "--endpoint needs host:port"; fi
    endpoints+=("$2")
    shift
    ;;
  -h | --help)
    echo "Usage: probe-node.sh [--region REGION] [--endpoint HOST:PORT]..."
    exit 0
    ;;
  *) die "unknown argument: $1" ;;
  esac
  shift
done

findings=()
add() { # id status summary evidence
  findings+=("{\"id\":$(json_str "$1"),\"status\":$(json_str "$2"),\"summary\":$(json_str "$3"),\"evidence\":$(json_str "$4")}")
}
ctr_() { ctr --address "$CONTAINERD_ADDRESS" --namespace k8s.io "$@"; }

# --- OS, runtime --------------------------------------------------------------------------------
os=$(os_id)
os_ver=$(os_version)
add node.os pass "OS $os ${os_ver}" "$(grep -sE '^(PRETTY_NAME|ID|VERSION_ID)=' "${OS_RELEASE:-/etc/os-release}" | tr '\n' ' ')"

containerd_version=$(containerd --version 2>/dev/null | awk '{print $3}' || true)
kubelet_version=$(kubelet --version 2>/dev/null | awk '{print $2}' || true)
runtime_ok=1
ctr_ version >/dev/null 2>&1 && runtime_ok=0
if [ "$runtime_ok" -eq 0 ]; then
  add node.runtime pass "containerd ${containerd_version:-?} answering, kubelet ${kubelet_version:-not found}" "socket $CONTAINERD_ADDRESS"
else
  add node.runtime fail "containerd ${containerd_version:-?} does not answer on $CONTAINERD_ADDRESS" "ctr version failed"
fi

soci=false
if uses_soci "$CONTAINERD_CONFIG"; then soci=true; fi
add node.soci pass "SOCI snapshotter $([ "$soci" = true ] && echo enabled || echo not in use)" "$CONTAINERD_CONFIG"

# --- sandbox image --------------------------------------------------------------------------------
sandbox=$(configured_sandbox_image "$CONTAINERD_CONFIG")
kubelet_args=${KUBELET_ARGS:-}
if [ -z "$kubelet_args" ]; then
  pid=$(pgrep -xo kubelet 2>/dev/null || true)
  if [ -n "$pid" ] && [ -r "$PROC/$pid/cmdline" ]; then kubelet_args=$(tr '\0' ' ' <"$PROC/$pid/cmdline"); fi
fi
kubelet_sandbox=$(printf '%s\n' "$kubelet_args" | grep -oE -- '--pod-infra-container-image[= ][^ ]+' | sed -E 's/^--pod-infra-container-image[= ]//' | awk 'NR == 1' || true)
if [ -n "$sandbox" ]; then sandbox=$(normalize_image "$sandbox"); fi
if [ -n "$kubelet_sandbox" ]; then kubelet_sandbox=$(normalize_image "$kubelet_sandbox"); fi
if [ -z "$sandbox" ] && [ -z "$kubelet_sandbox" ]; then
  add node.sandbox-image.configured fail "no sandbox image configured" "containerd config $CONTAINERD_CONFIG has neither sandbox_image nor pinned_images.sandbox"
elif [ -n "$kubelet_sandbox" ] && [ -n "$sandbox" ] && [ "$kubelet_sandbox" != "$sandbox" ]; then
  add node.sandbox-image.configured warn "containerd and kubelet disagree on the sandbox image" "containerd: $sandbox; kubelet --pod-infra-container-image: $kubelet_sandbox"
else
  sandbox=${sandbox:-$kubelet_sandbox}
  add node.sandbox-image.configured pass "sandbox image $sandbox" "containerd: ${sandbox}; kubelet flag: ${kubelet_sandbox:-not set}"
fi

present=1
pinned=1
if [ -n "$sandbox" ] && [ "$runtime_ok" -eq 0 ]; then
  images=$(ctr_ images ls 2>/dev/null || true)
  line=$(awk -v ref="$sandbox" '$1 == ref' <<<"$images")
  if [ -n "$line" ]; then
    present=0
    if [[ $line == *io.cri-containerd.pinned=pinned* ]]; then pinned=0; fi
  fi
  if [ "$present" -eq 0 ]; then
    add node.sandbox-image.present pass "$sandbox is in the k8s.io image store" "$line"
  else
    add node.sandbox-image.present fail "$sandbox is missing from the k8s.io image store" "ctr -n k8s.io images ls has no $sandbox"
  fi
  if [ "$pinned" -eq 0 ]; then
    add node.sandbox-image.pinned pass "$sandbox is pinned (image GC keeps it)" "label io.cri-containerd.pinned=pinned"
  else
    add node.sandbox-image.pinned fail "$sandbox is not pinned: image GC may remove it" "no io.cri-containerd.pinned=pinned label"
  fi
fi

if [ -r "$PAUSE_TAR" ]; then
  add node.pause-tarball pass "pause tarball present" "$PAUSE_TAR $(stat -c %s "$PAUSE_TAR") bytes"
elif [ "$os" = amzn ] && [ "${os_ver%%.*}" = 2023 ]; then
  add node.pause-tarball warn "AL2023 node without $PAUSE_TAR: the pause image cannot be re-imported" "$PAUSE_TAR missing"
else
  add node.pause-tarball pass "no pause tarball (expected on $os ${os_ver}: the image is pulled)" "$PAUSE_TAR missing"
fi

# --- image filesystem headroom vs kubelet image GC ------------------------------------------------
high=85
low=80
if [ -r "$KUBELET_CONFIG" ]; then
  v=$(grep -oE '"imageGCHighThresholdPercent"[[:space:]]*:[[:space:]]*[0-9]+' "$KUBELET_CONFIG" | grep -oE '[0-9]+$' || true)
  high=${v:-$high}
  v=$(grep -oE '"imageGCLowThresholdPercent"[[:space:]]*:[[:space:]]*[0-9]+' "$KUBELET_CONFIG" | grep -oE '[0-9]+$' || true)
  low=${v:-$low}
fi
root=$(awk -F= '/^[[:space:]]*root[[:space:]]*=/ { gsub(/["\x27 ]/, "", $2); print $2; exit }' "$CONTAINERD_CONFIG" 2>/dev/null || true)
root=${root:-/var/lib/containerd}
[ -d "$root" ] || root=/
read -r used_pct avail_kb < <(df -Pk "$root" | awk 'NR == 2 { sub(/%/, "", $5); print $5, $4 }')
read -r iused_pct < <(df -Pi "$root" | awk 'NR == 2 { sub(/%/, "", $5); print ($5 == "-" ? 0 : $5) }')
disk_evidence="image filesystem $root ${used_pct}% used, $((avail_kb / 1024)) MiB free; kubelet image GC high ${high}% low ${low}%"
if [ "$used_pct" -ge "$high" ]; then
  add node.disk fail "image filesystem ${used_pct}% full, above kubelet's image GC threshold (${high}%): GC is deleting images" "$disk_evidence"
elif [ "$used_pct" -ge "$low" ]; then
  add node.disk warn "image filesystem ${used_pct}% full, close to kubelet's image GC threshold (${high}%)" "$disk_evidence"
else
  add node.disk pass "image filesystem ${used_pct}% full" "$disk_evidence"
fi
if [ "$iused_pct" -ge 90 ]; then
  add node.inodes fail "image filesystem inodes ${iused_pct}% used" "df -i $root"
elif [ "$iused_pct" -ge 80 ]; then
  add node.inodes warn "image filesystem inodes ${iused_pct}% used" "df -i $root"
else
  add node.inodes pass "image filesystem inodes ${iused_pct}% used" "df -i $root"
fi

# --- PIDs and threads -----------------------------------------------------------------------------
pid_max=0
threads_max=0
read -r pid_max <"$PROC/sys/kernel/pid_max" 2>/dev/null || true
read -r threads_max <"$PROC/sys/kernel/threads-max" 2>/dev/null || true
# One awk reads every /proc/<pid>/status: a node out of PIDs cannot afford a fork per process.
# Output: "procs threads zombies", then the top zombie parents, then the top thread consumers.
{
  read -r procs threads zombies
  read -r top_parents
  read -r top
} < <(printf '%s\n' "$PROC"/[0-9]* | awk '
  function keep(vals, keys, key, val,   i, j) { # insert (key, val) into a top-5 ordered by val
    for (i = 1; i <= 5; i++) if (!(i in vals) || val > vals[i]) break
    if (i > 5) return
    for (j = 5; j > i; j--) if ((j - 1) in vals) { vals[j] = vals[j - 1]; keys[j] = keys[j - 1] }
    vals[i] = val; keys[i] = key
  }
  {
    f = $0 "/status"; name = ""; state = ""; ppid = ""; n = 1; ok = 0
    while ((getline line < f) > 0) {
      ok = 1
      if (line ~ /^Name:/) { sub(/^Name:[ \t]*/, "", line); name = line }
      else if (line ~ /^State:/) { split(line, a, /[ \t]+/); state = a[2] }
      else if (line ~ /^PPid:/) { split(line, a, /[ \t]+/); ppid = a[2] }
      else if (line ~ /^Threads:/) { split(line, a, /[ \t]+/); n = a[2] + 0 }
    }
    close(f)
    if (!ok) next
    procs++; threads += n
    if (state == "Z") { zombies++; zp[ppid]++ }
    pid = $0; sub(/.*\//, "", pid)
    keep(top, topk, name " (pid " pid ")", n)
  }
  END {
    printf "%d %d %d\n", procs, threads, zombies
    for (p in zp) keep(topz, topzk, p, zp[p])
    for (i = 1; i <= 5 && (i in topz); i++) printf "ppid %s: %s zombies; ", topzk[i], topz[i]
    printf "\n"
    for (i = 1; i <= 5 && (i in top); i++) printf "%s %s threads; ", topk[i], top[i]
    printf "\n"
  }')
pid_evidence="processes $procs, threads $threads, pid_max $pid_max, threads-max $threads_max"
pct() { if [ "$2" -gt 0 ]; then echo $(($1 * 100 / $2)); else echo 0; fi; }
pid_pct=$(pct "$threads" "$pid_max")
thr_pct=$(pct "$threads" "$threads_max")
worst=$((pid_pct > thr_pct ? pid_pct : thr_pct))
if [ "$worst" -ge 90 ]; then
  add node.pids fail "PID/thread use at ${worst}% of the limit: new processes fail with 'resource temporarily unavailable'" "$pid_evidence"
elif [ "$worst" -ge 75 ]; then
  add node.pids warn "PID/thread use at ${worst}% of the limit" "$pid_evidence"
else
  add node.pids pass "PID/thread use at ${worst}% of the limit" "$pid_evidence"
fi
if [ "$zombies" -gt 0 ]; then
  add node.zombies "$([ "$zombies" -ge 1000 ] && echo fail || echo warn)" "$zombies zombie processes" "$top_parents"
else
  add node.zombies pass "no zombie processes" "0 zombies"
fi
add node.top-pid-consumers pass "top thread consumers" "$top"

# --- reachability of ECR on 443 -------------------------------------------------------------------
for ep in ${PROBE_ENDPOINTS:-}; do
  if [[ $ep =~ ^[A-Za-z0-9][A-Za-z0-9.-]{0,252}:[0-9]{1,5}$ ]]; then endpoints+=("$ep"); fi
done
if [ -z "$region" ] && [[ ${sandbox%%/*} =~ \.dkr\.ecr\.([a-z0-9-]+)\.amazonaws\.com ]]; then region=${BASH_REMATCH[1]}; fi
if [ "${#endpoints[@]}" -eq 0 ] && [ -n "$region" ]; then
  endpoints=("api.ecr.$region.amazonaws.com:443")
  if [[ ${sandbox%%/*} == *.amazonaws.com ]]; then endpoints+=("${sandbox%%/*}:443"); fi
fi
reachable=()
unreachable=()
for ep in ${endpoints[@]+"${endpoints[@]}"}; do
  # shellcheck disable=SC2016 # $1/$2 expand in the child shell, not here
  if timeout "$CONNECT_TIMEOUT" bash -c 'exec 3<>"/dev/tcp/$1/$2"' _ "${ep%:*}" "${ep##*:}" 2>/dev/null; then
    reachable+=("$ep")
  else
    unreachable+=("$ep")
  fi
done
if [ "${#endpoints[@]}" -eq 0 ]; then
  add node.registry-reachable warn "registry reachability not checked: region unknown" "pass --region or --endpoint"
elif [ "${#unreachable[@]}" -gt 0 ]; then
  add node.registry-reachable fail "no TCP connection to ${unreachable[*]}" "unreachable within ${CONNECT_TIMEOUT}s: ${unreachable[*]}; reachable: ${reachable[*]+${reachable[*]}} (check endpoint security groups allow 443 from the node, NACLs, private DNS)"
else
  add node.registry-reachable pass "TCP 443 reachable: ${reachable[*]}" "connected within ${CONNECT_TIMEOUT}s"
fi

# --- one JSON document ----------------------------------------------------------------------------
joined=$(IFS=,; echo "${findings[*]}")
printf '{"node":{"os":%s,"osVersion":%s,"containerd":%s,"kubelet":%s,"sandboxImage":%s,"soci":%s},"findings":[%s]}\n' \
  "$(json_str "$os")" "$(json_str "$os_ver")" "$(json_str "$containerd_version")" "$(json_str "$kubelet_version")" \
  "$(json_str "$sandbox")" "$soci" "$joined"
