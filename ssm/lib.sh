#!/usr/bin/env bash
# Shared helpers for pod-doctor node scripts. Sourced, never run; embedded beside each script in its
# SSM document.

# Image references we accept: registry host[:port], path, tag and/or digest. No shell metacharacters.
POD_DOCTOR_IMAGE_RE='^[A-Za-z0-9][A-Za-z0-9.-]*(:[0-9]{1,5})?(/[a-z0-9]+([._-][a-z0-9]+)*)+(:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(@sha256:[a-f0-9]{64})?$'

log() { printf '%s pod-doctor: %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$*" >&2; }
die() {
  log "error: $*"
  exit 1
}

# JSON string literal of $1 (quotes, backslashes and control characters escaped).
json_str() {
  local s=$1 out='' c i code
  s=${s//\\/\\\\}
  s=${s//\"/\\\"}
  s=${s//$'\n'/\\n}
  s=${s//$'\r'/\\r}
  s=${s//$'\t'/\\t}
  for ((i = 0; i < ${#s}; i++)); do
    c=${s:i:1}
    printf -v code '%d' "'$c" 2>/dev/null || code=32
    if ((code >= 0 && code < 32)); then
      printf -v c '\\u%04x' "$code"
    fi
    out+=$c
  done
  printf '"%s"' "$out"
}

# JSON boolean of a shell condition result ($1 = 0 → true).
json_bool() { if [ "$1" -eq 0 ]; then printf true; else printf false; fi; }

# containerd (like docker) reads a reference without tag or digest as :latest; compare normalized refs.
normalize_image() {
  local ref=$1 last
  last=${ref##*/}
  if [[ $last != *:* && $last != *@* ]]; then ref="$ref:latest"; fi
  printf '%s' "$ref"
}

valid_image() { [[ $1 =~ $POD_DOCTOR_IMAGE_RE ]] && [ "${#1}" -le 255 ]; }

# The sandbox (pause) image containerd is configured with: containerd 2.x
# [plugins.'io.containerd.cri.v1.images'.pinned_images] sandbox, else containerd 1.x
# [plugins."io.containerd.grpc.v1.cri"] sandbox_image. Empty when neither is set.
configured_sandbox_image() {
  local config=$1
  [ -r "$config" ] || return 0
  awk '
    function unquote(v) { sub(/^[ \t]*=[ \t]*/, "", v); sub(/[ \t]*(#.*)?$/, "", v); gsub(/^["\x27]|["\x27]$/, "", v); return v }
    /^[ \t]*\[/ { section = $0; gsub(/[ \t"\x27]/, "", section); next }
    section == "[plugins.io.containerd.cri.v1.images.pinned_images]" && /^[ \t]*sandbox[ \t]*=/ { v2 = unquote(substr($0, index($0, "="))) }
    section == "[plugins.io.containerd.grpc.v1.cri]" && /^[ \t]*sandbox_image[ \t]*=/ { v1 = unquote(substr($0, index($0, "="))) }
    END { if (v2 != "") print v2; else if (v1 != "") print v1 }
  ' "$config"
}

# The sandbox image kubelet is started with (--pod-infra-container-image), from KUBELET_ARGS or the
# running kubelet's command line. Empty when the flag is not set.
kubelet_sandbox_image() {
  local args=${KUBELET_ARGS:-} pid
  if [ -z "$args" ]; then
    pid=$(pgrep -xo kubelet 2>/dev/null || true)
    if [ -n "$pid" ] && [ -r "${PROC:-/proc}/$pid/cmdline" ]; then args=$(tr '\0' ' ' <"${PROC:-/proc}/$pid/cmdline"); fi
  fi
  printf '%s\n' "$args" | grep -oE -- '--pod-infra-container-image[= ][^ ]+' | sed -E 's/^--pod-infra-container-image[= ]//' | awk 'NR == 1' || true
}

# containerd config selects the SOCI snapshotter for CRI.
uses_soci() {
  local config=$1
  [ -r "$config" ] && grep -Eq '^[[:space:]]*snapshotter[[:space:]]*=[[:space:]]*["'"'"']soci["'"'"']' "$config"
}

# The OS id from os-release (amzn, bottlerocket, ubuntu, ...).
os_id() {
  local f=${OS_RELEASE:-/etc/os-release}
  [ -r "$f" ] || {
    echo unknown
    return
  }
  # shellcheck disable=SC1090
  (. "$f" && echo "${ID:-unknown}")
}

os_version() {
  local f=${OS_RELEASE:-/etc/os-release}
  [ -r "$f" ] || return 0
  # shellcheck disable=SC1090
  (. "$f" && echo "${VERSION_ID:-}")
}
