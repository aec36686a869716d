#!/bin/sh
# The image's entrypoint: gives V8 a heap limit that fits the container's memory limit, then runs offersync.
# Node sizes its heap from the host's memory, not the container's, and lets it grow far past the live data
# before collecting: under a 512 MiB limit that is an OOM kill. The heap gets 3/4 of the limit less 32 MB (the
# rest of the process needs about 60 to 90 MB beside the heap). OFFERSYNC_HEAP_MB overrides it; no limit, no flag.
set -eu
cgroup=${OFFERSYNC_CGROUP_DIR:-/sys/fs/cgroup}
limit=
if [ -r "$cgroup/memory.max" ]; then limit=$(cat "$cgroup/memory.max")                          # cgroup v2
elif [ -r "$cgroup/memory/memory.limit_in_bytes" ]; then limit=$(cat "$cgroup/memory/memory.limit_in_bytes") # v1
fi
heap=${OFFERSYNC_HEAP_MB:-}
case "$limit" in
  '' | max | *[!0-9]*) ;;
  *)
    # cgroup v1 says "no limit" with a huge number: only limits below 1 TiB count.
    if [ -z "$heap" ] && [ "$limit" -lt 1099511627776 ]; then heap=$((limit / 1048576 * 3 / 4 - 32)); fi
    ;;
esac
here=$(dirname "$0")
if [ -n "$heap" ]; then exec node --max-old-space-size="$heap" "$here/offersync.js" "$@"; fi
exec node "$here/offersync.js" "$@"
