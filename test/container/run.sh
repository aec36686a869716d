#!/usr/bin/env bash
# npm run test:container: the production image, built and run with podman (as root; not part of npm test).
# Builds the Dockerfile (secrets planted in the build context must stay out), then in a pod of its own (the
# sandbox marketplace and the daemon share the pod's loopback; only the health port is published, to 127.0.0.1):
# readiness, a catalogue edit reaching the marketplace, /metrics from the host, a non-root user with a read-only
# catalogue, takeover after kill -9 by a container with another hostname (it waits, never exits), two minutes
# under catalogue edits with five kill -9 / takeover cycles (no abort, crash or restart), podman stop
# within 10 s with exit 0, a one-shot reconcile stopped mid-run (prompt, empty journal), the image's files and
# layers (no test/, .git, state, key), and podman kube play of deploy/kubernetes. Prints size and cold start.
# Every container, pod and volume it makes is named offersync-ct-* and removed at the end.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
IMAGE=${OFFERSYNC_TEST_IMAGE:-offersync}
P=offersync-ct
HOST_PORT=${CT_HOST_PORT:-19464}
TTL_MS=15000
KEY="ct-key-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
WORK=$(mktemp -d /tmp/offersync-ct.XXXXXX)
chmod 755 "$WORK"
STARTED=$(date +%s)
PLANTED=()

say() { printf '\n== %s\n' "$*"; }
ok() { printf 'ok   %s\n' "$*"; }
fail() {
  printf 'FAIL %s\n' "$*"
  for c in $(podman ps -a --format '{{.Names}}' | grep "^$P" || true); do
    printf -- '--- logs of %s (last 15 lines)\n' "$c"
    podman logs --tail 15 "$c" 2>&1 | sed 's/^/    /' || true
  done
  exit 1
}
ms() { date +%s%3N; }
# podman without systemd says it cannot schedule the image's HEALTHCHECK timer (the test runs it by hand): mute
# that line only.
pm() { podman "$@" 2> >(grep -v 'systemd connection' >&2); }
# Logs of a container, whole (grep -q on a pipe would end podman logs early and fail the pipeline).
logs_of() { podman logs "$1" 2>&1; }
# wait_for <seconds> <description> <command...>: polls every 0.5 s.
wait_for() {
  local limit=$1 what=$2
  shift 2
  local end=$(($(date +%s) + limit))
  until "$@" >/dev/null 2>&1; do
    [ "$(date +%s)" -lt "$end" ] || fail "timed out after ${limit}s waiting for $what"
    sleep 0.5
  done
}
cleanup() {
  set +e
  podman kube down "$WORK/kube.yaml" >/dev/null 2>&1
  podman pod rm -f -t 0 "$P" >/dev/null 2>&1
  for c in $(podman ps -a --format '{{.Names}}' | grep "^$P"); do podman rm -f -t 0 "$c" >/dev/null 2>&1; done
  for p in $(podman pod ls --format '{{.Name}}' | grep "^$P"); do podman pod rm -f -t 0 "$p" >/dev/null 2>&1; done
  for v in $(podman volume ls --format '{{.Name}}' | grep "^$P"); do podman volume rm -f "$v" >/dev/null; done
  for f in "${PLANTED[@]}"; do rm -rf "$f"; done
  rm -rf "$WORK"
}
trap cleanup EXIT

[ "$(id -u)" = 0 ] || fail "run as root (this test runs podman rootful)"
command -v podman >/dev/null || fail "podman is missing: install podman 4.3 or newer"

# ---------------------------------------------------------------------------------------------------------------
say "build (secrets planted in the build context must not reach the image)"
plant() {
  [ -e "$1" ] && fail "$1 exists already: not planting over it"
  mkdir -p "$(dirname "$1")"
  PLANTED+=("$1")
  printf '%s\n' "$KEY" >"$1"
}
[ -e .offersync ] || PLANTED+=("$ROOT/.offersync")
plant "$ROOT/.offersync/state.db"
plant "$ROOT/.offersync/state.db.hmac-key"
plant "$ROOT/offersync.key"
plant "$ROOT/config/local-secret.yaml"
plant "$ROOT/src/leftover.db"
t0=$(ms)
# --format docker keeps the HEALTHCHECK (the OCI format has none); --network host: RUN apt-get needs it here.
podman build --network host --format docker -t "$IMAGE" . >"$WORK/build.log" 2>&1 || {
  tail -30 "$WORK/build.log"
  fail "podman build"
}
ok "podman build --network host --format docker -t $IMAGE . ($(($(ms) - t0)) ms; layers cached where unchanged)"
for f in "${PLANTED[@]}"; do rm -rf "$f"; done
PLANTED=()
size=$(podman image inspect "$IMAGE" --format '{{.Size}}')
base=$(podman image inspect docker.io/library/node:24-bookworm-slim --format '{{.Size}}' 2>/dev/null || echo 0)
printf 'FIGURE image size: %s MB (base node:24-bookworm-slim stand-in %s MB, offersync adds %s MB)\n' \
  $((size / 1000000)) $((base / 1000000)) $(((size - base) / 1000000))
hc=$(podman image inspect "$IMAGE" --format '{{json .Config.Healthcheck.Test}}')
[[ $hc == *healthcheck* ]] || fail "the image has no HEALTHCHECK running offersync healthcheck: $hc"
ok "HEALTHCHECK: $hc"

say "cold start of offersync --version in the image"
for i in 1 2 3; do
  t0=$(ms)
  out=$(pm run --rm --network none "$IMAGE" --version)
  t1=$(ms)
  inner=$(pm run --rm --network none --entrypoint bash "$IMAGE" -c \
    'TIMEFORMAT=%R; { time node /app/bin/offersync.js --version >/dev/null; } 2>&1')
  printf 'FIGURE cold start #%d: podman run %s --version: %d ms; node inside the container: %s s (%s)\n' \
    "$i" "$IMAGE" $((t1 - t0)) "$inner" "$out"
done

say "image contents: no test/, sources, .git, state, key; the key in no layer"
pm run --rm --network none --entrypoint bash "$IMAGE" -c 'ls -A /app' >"$WORK/app-ls"
[ "$(tr '\n' ' ' <"$WORK/app-ls")" = "bin config dist node_modules package.json " ] ||
  fail "/app holds $(tr '\n' ' ' <"$WORK/app-ls")"
ok "/app holds only: $(tr '\n' ' ' <"$WORK/app-ls")"
podman save -q --format docker-archive -o "$WORK/image.tar" "$IMAGE" >/dev/null
mkdir "$WORK/image"
tar -xf "$WORK/image.tar" -C "$WORK/image"
: >"$WORK/files"
while IFS= read -r layer; do tar -tf "$layer" >>"$WORK/files"; done < <(find "$WORK/image" -name '*.tar')
bad=$(grep -E '^(\./)?app/(test|src|\.git|\.ci|deploy)(/|$)|\.offersync|\.hmac-key$|(^|/)[^/]*\.db$|offersync\.key|local-secret' \
  "$WORK/files" || true)
[ -z "$bad" ] || fail "the image holds: $bad"
ok "no test/, src/, .git, .ci, deploy, .offersync, *.db, key file among $(wc -l <"$WORK/files") paths in $(find "$WORK/image" -name '*.tar' | wc -l) layers"
if grep -r -a -l -F "$KEY" "$WORK/image" >/dev/null; then fail "the API key is in a layer"; fi
ok "the API key planted in the build context appears in no layer, config or manifest (podman save, grep)"
rm -rf "$WORK/image" "$WORK/image.tar"

# ---------------------------------------------------------------------------------------------------------------
say "pod: sandbox marketplace + daemon on the pod's loopback, health published to 127.0.0.1:$HOST_PORT"
mkdir -p "$WORK/catalogue/accounts" "$WORK/catalogue/items" "$WORK/catalogue/top-ups" "$WORK/once/items" \
  "$WORK/once/accounts" "$WORK/once/top-ups"
printf '[{"external_id":"ct-1","title":"Gold pack","price":500,"stock":3,"type":"gold"}]\n' >"$WORK/catalogue/items/stock.json"
printf '%s' "$KEY" >"$WORK/key"
chmod -R a+rX "$WORK/catalogue" "$WORK/once"
chmod 644 "$WORK/key"
podman pod create --name "$P" --share net --network bridge -p "127.0.0.1:$HOST_PORT:9464" >/dev/null
pm run -d --pod "$P" --name "$P-sandbox" "$IMAGE" sandbox --port 8080 --api-key "$KEY" >/dev/null
sandbox_js() { podman exec "$P-sandbox" node -e "fetch('http://127.0.0.1:8080/__sandbox/dump').then(r=>r.json()).then(d=>{$1})"; }
wait_for 30 "the sandbox" sandbox_js "process.exit(0)"
podman volume create "$P-daemon-state" >/dev/null
DAEMON_ARGS=(--pod "$P" -v "$WORK/catalogue:/catalogue:ro" -v "$P-daemon-state:/state"
  -v "$WORK/key:/run/secrets/offersync_key:ro" -e OFFERSYNC_API_KEY_FILE=/run/secrets/offersync_key
  -e OFFERSYNC_BASEURL=http://127.0.0.1:8080 -e OFFERSYNC_STATE_LEASETTLMS=$TTL_MS
  -e OFFERSYNC_DAEMON_DEBOUNCEMS=200 -e OFFERSYNC_RATELIMIT_RATEPERSEC=50 -e OFFERSYNC_RATELIMIT_BURST=10)
pm run -d --hostname daemon-a --name "$P-daemon" "${DAEMON_ARGS[@]}" "$IMAGE" >/dev/null
ready() { [ "$(curl -s -o /dev/null -w '%{http_code}' -m 3 "http://127.0.0.1:$HOST_PORT/readyz")" = 200 ]; }
t0=$(ms)
wait_for 90 "the daemon to become ready" ready
ok "the daemon is ready ($(($(ms) - t0)) ms after start): /readyz 200 from the host"
sandbox_js "process.exit(d.items.some(i=>i.external_id==='ct-1'&&i.price===500)?0:1)" || fail "ct-1 not in the sandbox"
ok "the initial reconcile created ct-1 in the sandbox"

listening=$(ss -ltnH "( sport = :$HOST_PORT )" | awk '{print $4}' | sort -u | tr '\n' ' ')
[ "$listening" = "127.0.0.1:$HOST_PORT " ] || fail "on the host, port $HOST_PORT listens on: $listening"
if ss -ltnH | awk '{print $4}' | grep -qE '(^|:)(8080|9464)$'; then
  ss -ltnH | grep -E ':(8080|9464) ' || true
  fail "the sandbox or the daemon port is reachable on the host beyond the published one"
fi
ok "on the host only 127.0.0.1:$HOST_PORT listens (the daemon binds 0.0.0.0 inside the pod; the sandbox stays in it)"

printf '[{"external_id":"ct-1","title":"Gold pack","price":650,"stock":3,"type":"gold"}]\n' >"$WORK/catalogue/items/stock.json"
t0=$(ms)
wait_for 60 "the edit to reach the sandbox" sandbox_js \
  "process.exit(d.items.some(i=>i.external_id==='ct-1'&&i.price===650)?0:1)"
ok "an edit of the mounted catalogue reached the sandbox in $(($(ms) - t0)) ms"

metrics=$(curl -s -m 5 "http://127.0.0.1:$HOST_PORT/metrics")
grep -q '^offersync_runs_total{seller="default",outcome="converged",trigger="start"} 1' <<<"$metrics" || fail "/metrics: no converged start run"
grep -q '^offersync_requests_total{seller="default",kind="item",method="POST",status_class="2xx"}' <<<"$metrics" || fail "/metrics: no item POST"
grep -q '^offersync_writer_lease_held{seller="default"} 1' <<<"$metrics" || fail "/metrics: lease not held"
if command -v promtool >/dev/null; then
  promtool check metrics <<<"$metrics" || fail "promtool check metrics"
  ok "/metrics from the host: runs, requests by kind/method/status class, lease held; promtool check metrics accepts it"
else
  ok "/metrics from the host: runs, requests by kind/method/status class, lease held (promtool not installed)"
fi

uid=$(podman exec "$P-daemon" id -u)
[ "$uid" != 0 ] || fail "the daemon runs as root"
if podman exec "$P-daemon" bash -c 'touch /catalogue/x' 2>/dev/null; then fail "the catalogue is writable"; fi
podman exec "$P-daemon" bash -c 'touch /state/.probe && rm /state/.probe' || fail "/state is not writable"
ok "the daemon runs as uid $uid ($(podman exec "$P-daemon" id -un)); /catalogue is read-only, /state writable"
health=$(podman healthcheck run "$P-daemon" && echo healthy || echo unhealthy)
[ "$health" = healthy ] || fail "podman healthcheck run: $health"
ok "the image's HEALTHCHECK passes (podman healthcheck run)"

# ---------------------------------------------------------------------------------------------------------------
say "kill -9, then a container with another hostname on the same state waits and takes over"
pm kill -s KILL "$P-daemon" >/dev/null
t_kill=$(ms)
pm run -d --hostname daemon-b --name "$P-daemon-b" "${DAEMON_ARGS[@]}" "$IMAGE" >/dev/null
waiting() { curl -s -m 3 "http://127.0.0.1:$HOST_PORT/readyz" | grep -q 'waiting for the writer lease'; }
wait_for 30 "daemon-b to report it waits for the lease" waiting
reason=$(curl -s -m 3 "http://127.0.0.1:$HOST_PORT/readyz")
ok "daemon-b waits, /readyz 503: $(sed -E 's/.*"reason":"([^"]*)".*/\1/' <<<"$reason")"
wait_for $((TTL_MS / 1000 + 30)) "daemon-b to become ready" ready
took=$(($(ms) - t_kill))
[ "$(podman inspect "$P-daemon-b" --format '{{.State.Status}} {{.RestartCount}}')" = "running 0" ] ||
  fail "daemon-b exited or restarted while waiting"
grep -q 'took over the writer lease' <<<"$(logs_of "$P-daemon-b")" || fail "daemon-b's log does not say it took over"
[ "$took" -le $((TTL_MS + 10000)) ] || fail "daemon-b was ready $took ms after the kill (TTL $TTL_MS ms)"
ok "daemon-b (hostname daemon-b) took over and was ready $took ms after the kill -9 (lease TTL $TTL_MS ms; the first reconcile included), never exiting"

# ---------------------------------------------------------------------------------------------------------------
# The image's runtime under the load that once aborted it (a prepared statement finalised by the garbage collector
# outside a JavaScript context, SIGABRT): a daemon in the image for at least CT_SOAK_SECONDS under catalogue edits,
# with at least CT_CYCLES kill -9 / takeover cycles, each by a new container on the same state. Any abort, crash,
# restart or duplicate fails it.
SOAK_S=${CT_SOAK_SECONDS:-120}
CYCLES=${CT_CYCLES:-5}
say "in the image for at least ${SOAK_S} s under catalogue edits, with at least $CYCLES kill -9 / takeover cycles"
write_stock() { # write_stock <base price>: 20 items, written whole then renamed in, as an inventory script does
  local base=$1 i sep='' body='['
  for i in $(seq 1 20); do
    body+="$sep{\"external_id\":\"ct-$i\",\"title\":\"Gold pack $i\",\"price\":$((base + i)),\"stock\":3,\"type\":\"gold\"}"
    sep=,
  done
  printf '%s]\n' "$body" >"$WORK/catalogue/items/.stock.tmp"
  chmod a+r "$WORK/catalogue/items/.stock.tmp"
  mv "$WORK/catalogue/items/.stock.tmp" "$WORK/catalogue/items/stock.json"
}
on_sandbox() { # on_sandbox <base price>: every item at base + i, each external_id once
  sandbox_js "const m=d.items.filter(i=>/^ct-\\d+$/.test(i.external_id));
    const ids=new Set(m.map(i=>i.external_id));
    process.exit(ids.size===m.length&&m.length===20&&m.every(i=>i.price===$1+Number(i.external_id.slice(3)))?0:1)"
}
# A container must be running, never restarted, its log free of what a crash of node or of an addon prints.
alive() {
  local c=$1 st
  st=$(podman inspect "$c" --format '{{.State.Status}} {{.RestartCount}}')
  [ "$st" = "running 0" ] || fail "$c: $st (it exited or restarted by itself)"
  crashed "$c"
}
crashed() {
  if logs_of "$1" | grep -nE 'Assertion failed|FATAL ERROR|\bAborted\b|core dumped|Segmentation fault|Native stack trace'; then
    fail "$1 crashed (above)"
  fi
}
current="$P-daemon-b"
soak_start=$(date +%s)
cycle=0
price=1000
write_stock $price
wait_for 60 "the 20 items at their first prices" on_sandbox $price
while [ $cycle -lt "$CYCLES" ] || [ $(($(date +%s) - soak_start)) -lt "$SOAK_S" ]; do
  [ $cycle -lt 40 ] || fail "more than 40 cycles: the loop should have ended"
  cycle=$((cycle + 1))
  # An edit the running daemon carries out, then one it is killed in the middle of.
  price=$((price + 100))
  write_stock $price
  wait_for 60 "cycle $cycle: the edit to reach the sandbox" on_sandbox $price
  alive "$current"
  price=$((price + 100))
  write_stock $price
  sleep 0.$((RANDOM % 10))
  pm kill -s KILL "$current" >/dev/null
  t_kill=$(ms)
  code=$(podman wait "$current" 2>/dev/null || podman inspect "$current" --format '{{.State.ExitCode}}')
  [ "$code" = 137 ] || fail "cycle $cycle: $current ended with $code, not 137 (SIGKILL)"
  crashed "$current"
  next="$P-daemon-c$cycle"
  pm run -d --hostname "daemon-c$cycle" --name "$next" "${DAEMON_ARGS[@]}" "$IMAGE" >/dev/null
  # Edits go on while the new container waits for the lease.
  price=$((price + 100))
  write_stock $price
  wait_for $((TTL_MS / 1000 + 60)) "cycle $cycle: $next to take over and carry out the edits" on_sandbox $price
  alive "$next"
  printf 'ok   cycle %d: %s killed (137), %s took over; the last edit on the sandbox %d ms after the kill\n' \
    "$cycle" "${current#"$P-"}" "${next#"$P-"}" $(($(ms) - t_kill))
  current=$next
done
printf 'FIGURE in-image soak: %d kill -9 / takeover cycles in %d s, %d catalogue edits; no abort, crash or restart\n' \
  "$cycle" $(($(date +%s) - soak_start)) $((cycle * 3 + 1))

# ---------------------------------------------------------------------------------------------------------------
say "podman stop of the daemon"
t0=$(ms)
pm stop -t 10 "$current" >/dev/null
took=$(($(ms) - t0))
code=$(podman inspect "$current" --format '{{.State.ExitCode}}')
[ "$code" = 0 ] || fail "the daemon exited $code on podman stop"
[ "$took" -lt 10000 ] || fail "podman stop took $took ms"
ok "podman stop returned in $took ms, exit code 0"

# ---------------------------------------------------------------------------------------------------------------
say "one-shot reconcile stopped mid-run"
node -e 'const n=+process.argv[1];console.log(JSON.stringify(Array.from({length:n},(_,i)=>({external_id:`once-${i}`,title:`Once ${i}`,price:100+i,stock:1,type:"gold"}))))' 300 \
  >"$WORK/once/items/once.json"
chmod a+r "$WORK/once/items/once.json"
podman volume create "$P-once" >/dev/null
pm run -d --name "$P-once" --pod "$P" -v "$WORK/once:/catalogue:ro" -v "$P-once:/state" \
  -v "$WORK/key:/run/secrets/offersync_key:ro" -e OFFERSYNC_API_KEY_FILE=/run/secrets/offersync_key \
  -e OFFERSYNC_BASEURL=http://127.0.0.1:8080 -e OFFERSYNC_RATELIMIT_RATEPERSEC=10 -e OFFERSYNC_RATELIMIT_BURST=2 \
  "$IMAGE" reconcile >/dev/null
wait_for 60 "the one-shot run's first creates" sandbox_js \
  "process.exit(d.items.filter(i=>i.external_id.startsWith('once-')).length>=5?0:1)"
t0=$(ms)
pm stop -t 10 "$P-once" >/dev/null
took=$(($(ms) - t0))
code=$(podman inspect "$P-once" --format '{{.State.ExitCode}}')
made=$(sandbox_js "console.log(d.items.filter(i=>i.external_id.startsWith('once-')).length)")
[ "$code" = 1 ] || fail "the stopped reconcile exited $code (expected 1)"
[ "$took" -lt 9000 ] || fail "podman stop of the one-shot took $took ms"
grep -q 'SIGTERM: stopping' <<<"$(logs_of "$P-once")" || fail "the one-shot did not say it was stopping"
unfinished=$(pm run --rm --network none -v "$P-once:/state" -w /app --entrypoint node "$IMAGE" -e \
  "const D=require('better-sqlite3');const db=new D('/state/state.db',{readonly:true});console.log(db.prepare(\"select count(*) n from journal where state in ('pending','sent')\").get().n, db.prepare('select outcome from runs order by started_at desc limit 1').get().outcome)")
[ "$unfinished" = "0 stopped" ] || fail "after the stop: unfinished journal entries and run outcome: $unfinished"
ok "stopped mid-run ($made of 300 created): podman stop returned in $took ms, exit 1, journal: 0 unfinished, run 'stopped'"

# ---------------------------------------------------------------------------------------------------------------
say "podman kube play deploy/kubernetes/offersync.yaml"
pm pod rm -f -t 0 "$P" >/dev/null
# What podman 4.3 cannot serve is replaced here, and said: a Secret volume makes `kube play` panic (nil
# dereference in VolumeFromSecret), so the key comes from a hostPath file; readinessProbe is not run by podman,
# so the test runs the probe's own command; the sandbox joins the pod as a second container.
node --input-type=module - "$ROOT/deploy/kubernetes/offersync.yaml" "$WORK" "$KEY" "$IMAGE" "$HOST_PORT" >"$WORK/kube.yaml" <<'JS'
import { readFileSync } from 'node:fs';
import { parseAllDocuments, stringify } from 'yaml';
const [file, work, key, image, hostPort] = process.argv.slice(2);
// Every name gets the test's prefix, so nothing of a real deployment on this machine is touched.
const ct = (name) => name.replace(/^offersync/, 'offersync-ct');
const docs = parseAllDocuments(readFileSync(file, 'utf8')).map((d) => d.toJS());
for (const d of docs) {
  d.metadata.name = ct(d.metadata.name);
  if (d.kind === 'ConfigMap' && d.data.OFFERSYNC_BASEURL) d.data.OFFERSYNC_BASEURL = 'http://127.0.0.1:8080';
  if (d.kind !== 'Deployment') continue;
  const spec = d.spec.template.spec;
  const app = spec.containers[0];
  app.image = image;
  app.ports[0].hostPort = Number(hostPort);
  app.ports[0].hostIP = '127.0.0.1';
  for (const e of app.envFrom) e.configMapRef.name = ct(e.configMapRef.name);
  spec.volumes = spec.volumes.map((v) => {
    if (v.secret) return { name: v.name, hostPath: { path: `${work}/kube-secret`, type: 'Directory' } };
    if (v.configMap) v.configMap.name = ct(v.configMap.name);
    if (v.persistentVolumeClaim) v.persistentVolumeClaim.claimName = ct(v.persistentVolumeClaim.claimName);
    return v;
  });
  spec.containers.push({
    name: 'sandbox',
    image,
    args: ['sandbox', '--port', '8080', '--api-key', key],
    securityContext: { runAsUser: 1000, readOnlyRootFilesystem: true },
  });
}
process.stdout.write(docs.map((d) => stringify(d)).join('---\n'));
JS
mkdir -p "$WORK/kube-secret"
printf '%s' "$KEY" >"$WORK/kube-secret/api-key"
chmod -R a+rX "$WORK/kube-secret"
podman kube play --network bridge "$WORK/kube.yaml" >"$WORK/kube-play.log" 2>&1 || {
  cat "$WORK/kube-play.log"
  fail "podman kube play"
}
KPOD=$P-pod-0
KAPP=$KPOD-offersync
wait_for 30 "the kube pod's container" podman exec "$KAPP" true
probe_cmd=$(node --input-type=module -e "
import { readFileSync } from 'node:fs'; import { parseAllDocuments } from 'yaml';
const dep = parseAllDocuments(readFileSync('$ROOT/deploy/kubernetes/offersync.yaml','utf8')).map(d=>d.toJS()).find(d=>d.kind==='Deployment');
console.log(dep.spec.template.spec.containers[0].readinessProbe.exec.command.join(' '));")
kready() { podman exec "$KAPP" $probe_cmd; }
t0=$(ms)
wait_for 90 "the readiness probe ($probe_cmd) to pass" kready
ok "kube play: the readiness probe command ($probe_cmd) passes $(($(ms) - t0)) ms after start"
kube=$(podman inspect "$KAPP" --format 'user={{.Config.User}} readonly-rootfs={{.HostConfig.ReadonlyRootfs}} health={{json .Config.Healthcheck.Test}}')
[[ $kube == *"readonly-rootfs=true"* && $kube == *"user=1000"* ]] || fail "kube play container: $kube"
podman healthcheck run "$KAPP" >/dev/null || fail "the livenessProbe (a podman healthcheck) fails"
ok "kube play: $kube; livenessProbe passes (podman healthcheck run)"
[ "$(curl -s -o /dev/null -w '%{http_code}' -m 3 "http://127.0.0.1:$HOST_PORT/readyz")" = 200 ] ||
  fail "kube play: /readyz on the hostPort"
ok "kube play: /readyz answers 200 on 127.0.0.1:$HOST_PORT (hostIP/hostPort)"
podman kube down "$WORK/kube.yaml" >/dev/null 2>&1

say "all container checks passed in $(($(date +%s) - STARTED)) s"
