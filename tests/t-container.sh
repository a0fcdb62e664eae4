#!/bin/sh
# t-container.sh - a process whose binary exists only in its own mount
# namespace (as in a container): the path in its maps names nothing on
# the host, so shimtop must read it through /proc/PID/root.  Then a
# process in its own PID namespace with its own /dev/shm: its signal
# segment is named after the PID it sees (1) and lives in its /dev/shm,
# and the observer must still find it.
. "$TESTS_DIR/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "a private mount namespace needs root"
command -v unshare >/dev/null || skip "unshare (util-linux) is not installed"
PRIV="$TMP/private"
mkdir -p "$PRIV"

# find_pid PARENT PATTERN: waits up to 5 s for a child of PARENT (the
# unshare started here) whose command line matches PATTERN; prints its pid
# (nothing if none appeared).  Not any process so named: the other suite's
# t-container may run beside this one, and its demo go while read here.
find_pid() {
	i=0
	while [ $i -lt 50 ]; do
		p=$(pgrep -P "$1" -f "$2" | head -1)
		[ -n "$p" ] && echo "$p" && return
		sleep 0.1
		i=$((i + 1))
	done
}
unshare --mount --propagation private --fork sh -c "
	mount -t tmpfs none '$PRIV' && cp '$SHIMTOP_DEMO' '$PRIV/contained-demo' &&
	exec '$PRIV/contained-demo' --ready-file '$TMP/contained-ready'" &
BG_PIDS="$BG_PIDS $!"
DEMO_PID=$(find_pid $! "^$PRIV/contained-demo")
[ -n "$DEMO_PID" ] || skip "could not start a process in a mount namespace here"
BG_PIDS="$BG_PIDS $DEMO_PID"
[ ! -e "$PRIV/contained-demo" ] || fail "the binary leaked out of the namespace"
i=0
while [ ! -e "$TMP/contained-ready" ] && [ $i -lt 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
"$SHIMTOP" --batch --duration 1.5 -p "$DEMO_PID" >"$TMP/out" 2>"$TMP/err" ||
	fail "shimtop failed: $(cat "$TMP/err")"
for fn in phase_compute phase_branchy; do
	grep -q "contained-demo  *$fn\$" "$TMP/out" ||
		fail "$fn not resolved through /proc/PID/root: $(head -12 "$TMP/out")"
done
kill "$DEMO_PID" 2>/dev/null

# The demo is the namespace's init: a signal from outside reaches it only
# if it handles it (SIGTERM it does not), so the test's end kills it with
# SIGKILL.  (Not unshare --kill-child: under load its parent once failed
# "sigprocmask unblock failed: Invalid argument", exited, and took the demo
# with it before it was observed.)
unshare --mount --propagation private --pid --fork sh -c "
	mount -t tmpfs none /dev/shm && cp '$SHIMTOP_DEMO' /dev/shm/ns-demo &&
	exec /dev/shm/ns-demo --seconds 60" &
BG_PIDS="$BG_PIDS $!"
NS_PID=$(find_pid $! "^/dev/shm/ns-demo")
[ -n "$NS_PID" ] || skip "could not start a process in a PID namespace here"
BG_PIDS="$BG_PIDS $NS_PID"
# It builds its data, then creates the segment (in its own /dev/shm).
i=0
while [ ! -e "/proc/$NS_PID/root/dev/shm/shimtop-1" ] && [ $i -lt 600 ]; do
	sleep 0.1
	i=$((i + 1))
done
# The host's /dev/shm may hold segments of long-dead processes with these
# ids, even empty ones (a target killed in its truncated segment); only
# one made by this process (its start time) would be a leak.
python3 - "$NS_PID" <<'PY' || fail "the namespaced segment is visible on the host"
import struct, sys
pid = sys.argv[1]
start = int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[19])
for name in (f"/dev/shm/shimtop-{pid}", "/dev/shm/shimtop-1"):
    try:
        head = open(name, "rb").read(200)
    except OSError:
        continue
    if len(head) < 200:
        continue    # too short to be a segment, so not this process's
    if struct.unpack_from("<I", head, 196)[0] == start & 0xffffffff:
        sys.exit(f"{name} was made by process {pid}")
PY
"$SHIMTOP" --batch --duration 1.5 --observe -p "$NS_PID" >"$TMP/out" 2>"$TMP/err" ||
	fail "observer on a PID-namespaced process failed: $(cat "$TMP/err")"
grep -Eq "^ *[0-9.]+% +[0-9]+  compute " "$TMP/out" ||
	fail "no phase tags from the namespaced segment: $(sed -n '/^observer/,$p' "$TMP/out")"
kill -KILL "$NS_PID"
finish
