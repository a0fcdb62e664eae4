#!/bin/sh
# t-offcpu.sh - --off-cpu: where threads wait, against waits of known
# length (tests/waits): half a thread's wall time asleep under nap_here();
# a mutex's waiter's time under wait_lock() and the kernel's futex wait,
# "lock"; fsync's time uninterruptible, "disk".  And the refusals: no
# tracefs, no permission, with -i, with IBS.
. "$TESTS_DIR/lib.sh"

WAITS="$TESTS_BIN/waits"
[ "$(id -u)" -eq 0 ] || skip "sched:sched_switch's samples need root (or CAP_PERFMON) here"

# start_waits NAME MODE SECONDS: the waits program in the background (w its
# pid, its output in $TMP/NAME.out), once its threads run.
start_waits() {
	"$WAITS" "$2" "$3" >"$TMP/$1.out" 2>&1 &
	w=$!
	BG_PIDS="$BG_PIDS $w"
	i=0
	while ! grep -q ready "$TMP/$1.out" 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

# offcpu MODE SECONDS: the waits program run for longer than SECONDS (a loaded
# machine's slow start included; killed after), shimtop attached for SECONDS,
# JSON into $TMP/MODE.json.
offcpu() {
	start_waits "$1" "$1" "$(($2 + 60))"
	# Killed below before it removes its file (fsync's, here: not tmpfs), the test does.
	LEFT_FILES="$LEFT_FILES $PWD/waits-fsync.$w"
	"$SHIMTOP" --batch --format json --off-cpu --duration "$2" -p "$w" >"$TMP/$1.json" \
		2>"$TMP/$1.err" || fail "--off-cpu -p ($1) failed: $(cat "$TMP/$1.err")"
	kill "$w" 2>/dev/null
}

# check FILE EXPR WHAT: EXPR (Python over the JSON d, with helpers) holds.
check() {
	python3 - "$1" "$2" <<'PY' || fail "$3"
import json, os, sys
d = json.load(open(sys.argv[1]))
# The worker thread: not the main one, which only sleeps in usleep().
workers = [t for t in d['per_thread'] if t['tid'] != t['pid']]
def sym(name):
    rows = [r for r in d['rows'] if r['symbol'] == name]
    return rows[0] if rows else {}
def off(name):
    return sym(name).get('offcpu_s', 0.0)
# The lock's waiter, by the tid waits said (WAITER_TID).
waiter = next((t for t in workers if t['tid'] == int(os.environ.get('WAITER_TID') or 0)), {})
def worst(key):
    return max(workers, key=lambda t: t.get(key) or 0)
def v(t, key):
    return t.get(key) or 0		# null: no wait of that kind
ok = eval(sys.argv[2])
if not ok:
    print("failed: " + sys.argv[2], file=sys.stderr)
    for t in d['per_thread']:
        print({k: t.get(k) for k in ('tid', 'on_cpu_s', 'sleep_s', 'lock_s', 'disk_s',
                                     'runqueue_s', 'wall_s')}, file=sys.stderr)
    print({r['symbol']: r.get('offcpu_s') for r in d['rows'] if r.get('offcpu_s')},
          file=sys.stderr)
    print("woken by:", d['source'].get('woken_by'), file=sys.stderr)
sys.exit(0 if ok else 1)
PY
}

# Half on the CPU (spin_here: on it or preempted, wall time either way),
# half asleep under nap_here: each within 5 points of the thread's own
# clock's shares of its life (about 50% each; a busy machine's preemptions
# move them), the program launched so that shimtop sees all of its life.
"$SHIMTOP" --batch --format json --off-cpu -- "$WAITS" nap 3 >"$TMP/nap.json" 2>"$TMP/nap.err" ||
	fail "--off-cpu -- waits nap failed: $(cat "$TMP/nap.err")"
own=$(sed -n 's/^nap \([0-9.]*\) spin \([0-9.]*\)$/\1 \2/p' "$TMP/nap.err")
nap_own=${own% *} spin_own=${own#* }
check "$TMP/nap.json" "d['source']['sampled'][1]['event'] == 'offcpu-time'" \
	"the off-CPU samples are not the event offcpu-time"
check "$TMP/nap.json" "len(workers) == 1 and 2.5 < workers[0]['wall_s'] < 3.6" \
	"the napping thread's wall time is not about the 3 s it ran"
check "$TMP/nap.json" "abs(off('nap_here') / workers[0]['wall_s'] - ${nap_own:-0.5}) <= 0.05" \
	"off-CPU time under nap_here is not the thread's nap (${nap_own:-?} of its life by its clock)"
check "$TMP/nap.json" \
	"abs((workers[0]['on_cpu_s'] + v(workers[0], 'runqueue_s')) / workers[0]['wall_s'] - ${spin_own:-0.5}) <= 0.05" \
	"on the CPU (or waiting for it) is not the thread's spin (${spin_own:-?} of its life)"
check "$TMP/nap.json" "abs(${nap_own:-0} - 0.5) <= 0.15" \
	"the napping thread's own clock says it napped ${nap_own:-?} of its life, not about half"
check "$TMP/nap.json" "abs(workers[0]['sleep_s'] - off('nap_here')) <= 0.05 * workers[0]['wall_s']" \
	"the thread's sleep is not its time under nap_here"
check "$TMP/nap.json" "not v(workers[0], 'lock_s') and not v(workers[0], 'disk_s')" \
	"a nanosleep was called a lock or a disk wait"
# Every wait's state known, the main thread's usleep too: its switch came as
# the program started, before the walker knew the process, and went out with
# its copy, its state told apart (and stamped after it).
check "$TMP/nap.json" "d['source']['waited_s']['other'] <= 0.01 * sum(d['source']['waited_s'].values()) \
	and v(next(t for t in d['per_thread'] if t['tid'] == t['pid']), 'sleep_s') >= 2.5" \
	"waits of unknown state, or the main thread's usleep not a sleep: $(grep -o '"waited_s":{[^}]*}' "$TMP/nap.json")"
# WALL: a function's time on the CPU (cpu-clock's) and waiting under it.  The
# thread's own function holds all of its life; spin_here, its time on the CPU.
check "$TMP/nap.json" "abs(sym('napper')['wall_s'] - workers[0]['wall_s']) <= 0.02 * workers[0]['wall_s']" \
	"napper's WALL is not its thread's wall time"
check "$TMP/nap.json" \
	"abs(sym('spin_here')['wall_s'] - off('spin_here') - workers[0]['on_cpu_s']) <= 0.05 * workers[0]['wall_s']" \
	"spin_here's WALL is not its thread's time on the CPU and preempted there"
# The same without the kernel's walker: sched_switch sampled with copies,
# prev_state read from its raw data (kernels without BPF, or before 5.18).
SHIMTOP_KERNEL_WALK=0 "$SHIMTOP" --batch --format json --off-cpu -- "$WAITS" nap 2 \
	>"$TMP/nap-copies.json" 2>"$TMP/nap.err" || fail "--off-cpu without the walker failed"
own=$(sed -n 's/^nap \([0-9.]*\) spin \([0-9.]*\)$/\1/p' "$TMP/nap.err")
check "$TMP/nap-copies.json" "abs(off('nap_here') / workers[0]['wall_s'] - ${own:-0.5}) <= 0.05 and \
	abs(workers[0]['sleep_s'] - off('nap_here')) <= 0.05 * workers[0]['wall_s'] and \
	d['tree'].get('kernel_walked', 0) == 0" \
	"without the walker, off-CPU time under nap_here is not the thread's nap (${own:-?})"

# Contending one mutex: the waiter's time under wait_lock, through
# pthread_mutex_lock to the kernel's futex wait, and called a lock.
offcpu lock 3
# The waiter by its tid (on a busy machine the holder, preempted holding
# it, can wait more); its time waiting for a CPU depends on the load: not
# counted.  It blocks on nothing but the lock.
WAITER_TID=$(sed -n 's/^holder [0-9]* waiter \([0-9]*\)$/\1/p' "$TMP/lock.out")
export WAITER_TID
check "$TMP/lock.json" "v(waiter, 'lock_s') >= 0.25 * (waiter['wall_s'] - v(waiter, 'runqueue_s'))" \
	"the mutex's waiter (${WAITER_TID:-?}) spent under a quarter of its time off the run queue waiting"
check "$TMP/lock.json" \
	"v(waiter, 'lock_s') >= 0.9 * sum(v(waiter, k) for k in ('sleep_s', 'lock_s', 'disk_s'))" \
	"the mutex's waiter blocked on something other than the lock"
check "$TMP/lock.json" "off('wait_lock') >= 0.9 * v(waiter, 'lock_s')" \
	"the lock's wait is not under wait_lock"
check "$TMP/lock.json" "sym('wait_lock')['offcpu_why_s']['lock'] >= 0.9 * v(waiter, 'lock_s')" \
	"wait_lock's waits are not told as a lock's"
check "$TMP/lock.json" \
	"any(r.get('offcpu_s', 0) >= 0.9 * v(waiter, 'lock_s') and 'pthread_mutex_lock' in r['symbol'] for r in d['rows'])" \
	"the lock's wait is not under pthread_mutex_lock"
check "$TMP/lock.json" \
	"any(r.get('offcpu_s', 0) >= 0.9 * v(waiter, 'lock_s') and 'futex' in r['symbol'] and r['module'] == '[kernel]' for r in d['rows'])" \
	"the lock's wait is not under the kernel's futex wait"
# Who woke it (where the kernel's walker notes wakeups): the waiter's lock waits
# were ended by the holder's unlocks, its thread named, the time theirs.
HOLDER_TID=$(sed -n 's/^holder \([0-9]*\) waiter [0-9]*$/\1/p' "$TMP/lock.out")
export HOLDER_TID
WAKERS=$(python3 -c "import json, sys; print(int(bool(json.load(open(sys.argv[1]))['source'].get('offcpu_wakers_seen'))))" "$TMP/lock.json")
if [ "$WAKERS" = 1 ]; then
	check "$TMP/lock.json" "sum(k['waited_s'] for k in d['source']['woken_by'] \
		if k['tid'] == waiter['tid'] and k['waker_tid'] == int(os.environ['HOLDER_TID']) and \
		k['waker_pid'] == waiter['pid'] and k['waker'] == 'waits[%s]' % os.environ['HOLDER_TID']) \
		>= 0.9 * v(waiter, 'lock_s')" \
		"the waiter's lock waits were not woken by the holder ($HOLDER_TID): \
$(grep -o '"woken_by".*' "$TMP/lock.json" | cut -c1-600)"
	check "$TMP/lock.json" "waiter.get('woken_most_by') == 'waits[%s]' % os.environ['HOLDER_TID']" \
		"the thread table's WOKEN MOST BY of the waiter is not the holder ($HOLDER_TID)"
else
	echo "who woke the waits is not seen here (no BPF walker): not checked"
fi

# Blocked before shimtop attached (waits stuck): their switches out came
# before sampling, so only /proc and their stacks say where they wait.
# The holder naps the whole second under nap_here with the mutex held,
# the waiter waits for it under wait_lock, "lock"; both found at the start.
start_waits stuck stuck 60
"$SHIMTOP" --batch --format json --off-cpu --duration 1 -p "$w" >"$TMP/stuck.json" \
	2>"$TMP/stuck.err" || fail "--off-cpu -p (stuck) failed: $(cat "$TMP/stuck.err")"
kill "$w" 2>/dev/null
WAITER_TID=$(sed -n 's/^holder [0-9]* waiter \([0-9]*\)$/\1/p' "$TMP/stuck.out")
HOLDER_TID=$(sed -n 's/^holder \([0-9]*\) waiter [0-9]*$/\1/p' "$TMP/stuck.out")
export WAITER_TID HOLDER_TID
check "$TMP/stuck.json" "d['source']['offcpu_waiting_at_start'] == 3" \
	"not the 3 threads of waits stuck found waiting as sampling began"
check "$TMP/stuck.json" \
	"[v(t, 'sleep_s') for t in workers if t['tid'] == int(os.environ['HOLDER_TID'])][0] >= 0.9" \
	"the holder, asleep before shimtop attached, slept under 0.9 s of the second"
check "$TMP/stuck.json" "off('nap_here') >= 0.9 and off('holder_stuck') >= 0.9" \
	"the holder's nap is not under nap_here and holder_stuck"
check "$TMP/stuck.json" "v(waiter, 'lock_s') >= 0.9 and not v(waiter, 'sleep_s')" \
	"the waiter, blocked on the mutex before shimtop attached, is not told waiting for a lock"
check "$TMP/stuck.json" "sym('wait_lock')['offcpu_why_s']['lock'] >= 0.9" \
	"the waiter's wait is not under wait_lock, as a lock's"
check "$TMP/stuck.json" \
	"any(r.get('offcpu_s', 0) >= 0.9 and 'pthread_mutex_lock' in r['symbol'] for r in d['rows'])" \
	"the waiter's wait is not under pthread_mutex_lock"

# fsync in a loop, on a file here (not tmpfs, which never waits for a disk).
if [ "$(stat -f -c %T .)" = tmpfs ]; then
	echo "note: $(pwd) is tmpfs: fsync waits for no disk; its check is left out"
else
	offcpu fsync 3
	check "$TMP/fsync.json" "v(workers[0], 'disk_s') >= 0.25 * workers[0]['wall_s']" \
		"the fsync loop spent under a quarter of its wall time in D"
	check "$TMP/fsync.json" "off('fsync') >= 0.9 * workers[0]['disk_s']" \
		"the disk waits are not under fsync"
fi

# Recorded (-o) and read back: the waits as they were; folded stacks of
# offcpu-time in microseconds (offcputime -f's unit); pprof's offcpu-time
# sample type in nanoseconds, read by go tool pprof.
start_waits rec nap 60
"$SHIMTOP" --batch --off-cpu -o "$TMP/waits.rec" --snapshot-on-exit "$TMP/waits.snap" \
	--duration 2 -p "$w" >/dev/null 2>"$TMP/err" || fail "--off-cpu -o failed: $(cat "$TMP/err")"
kill "$w" 2>/dev/null
"$SHIMTOP" -i "$TMP/waits.rec" --batch --format json -s offcpu -e offcpu-time >"$TMP/rec.json" 2>"$TMP/err" ||
	fail "-i of an --off-cpu recording failed: $(cat "$TMP/err")"
check "$TMP/rec.json" "0.7 < off('nap_here') < 1.3" "the recording's nap is not about 1 s of its 2"
# Its naps ended by the timer's interrupt, carried in the recording: no thread woke them.
# Each from the first: the wakeups of the process sampled are sent before
# the walker holds its mappings (a loaded machine took 250 ms to teach it).
# All but the naps under way at the two edges, 10 ms each: the one the
# stop cuts is a wait so far, woken by none yet (a loaded machine's
# naps, fewer, once had it at 1.3% of their time).
# (The sanitized build, beside the suite, left more than two unwoken
# once, cause not yet known: 5% of the nap time there, until it is.)
unwoken=0.021
[ "${SHIMTOP_SANITIZED:-no}" = yes ] && unwoken="0.05 * off('nap_here')"
check "$TMP/rec.json" "not $WAKERS or (off('nap_here') - \
	sum(k['waited_s'] for k in d['source']['woken_by'] if k['waker'] == '[interrupt]') \
	<= $unwoken and all(k['waker'] == '[interrupt]' for k in d['source']['woken_by'] \
	if k['tid'] == workers[0]['tid']))" "the recording's naps were not all woken by interrupts"
# A time range's WALL is the range's: the recording's first second, about half of napper's 2 s.
"$SHIMTOP" -i "$TMP/waits.rec" --batch --format json -s wall --range 0:1 >"$TMP/range.json" \
	2>"$TMP/err" || fail "--range -s wall of an --off-cpu recording failed: $(cat "$TMP/err")"
check "$TMP/range.json" "0.85 <= sym('napper')['wall_s'] <= 1.1 and 2 * sym('napper')['wall_s'] > \
	sym('nap_here')['wall_s'] + sym('spin_here')['wall_s'] > 0.85" \
	"a time range's WALL is not its own second"
check "$TMP/range.json" "[r['wall_s'] for r in d['rows']] == sorted((r['wall_s'] for r in d['rows']), reverse=True)" \
	"-s wall does not order the rows by WALL"
# How many threads waited as sampling began is the live source's count: a recording does not say.
check "$TMP/rec.json" "'offcpu_waiting_at_start' not in d['source']" \
	"a recording's report claims a count of threads waiting as it began"
"$SHIMTOP" -i "$TMP/waits.rec" --batch >"$TMP/rec.txt" 2>"$TMP/err" || fail "-i text: $(cat "$TMP/err")"
grep -q "^off-CPU: .* waits, [0-9]* switches not seen to end" "$TMP/rec.txt" ||
	fail "a recording's off-CPU line: $(grep off-CPU "$TMP/rec.txt")"
# A snapshot of the same session holds the same waits (its history's samples, their reasons
# kept): the same totals by why, the same time under the napping thread's own functions.
# (Its frames are named again from its symbols: a preemption's leaf may differ, a PLT stub
# for its neighbour, and its trees' outermost frames are libc's start_thread where a
# recording's are clone3: those are not compared.)
"$SHIMTOP" -i "$TMP/waits.snap" --batch --format json -s offcpu -e offcpu-time >"$TMP/snap.json" \
	2>"$TMP/err" || fail "-i of an --off-cpu snapshot failed: $(cat "$TMP/err")"
python3 - "$TMP/rec.json" "$TMP/snap.json" <<'PY' || fail "the snapshot's waits differ from the recording's"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
total = sum(a["source"]["waited_s"].values())
fa = {r["symbol"]: r.get("offcpu_s") or 0 for r in a["rows"] if r["module"] == "waits"}
fb = {r["symbol"]: r.get("offcpu_s") or 0 for r in b["rows"] if r["module"] == "waits"}
big = ["napper", "nap_here"]
ok = a["source"]["waited_s"] == b["source"]["waited_s"] and fa.get("nap_here", 0) >= 0.1 * total \
    and all(abs(fa.get(k, 0) - fb.get(k, 0)) <= 0.02 * fa.get(k, 0) + 2e-3 for k in big)
if not ok:
    print(a["source"]["waited_s"], b["source"]["waited_s"], file=sys.stderr)
    print([(k, fa.get(k), fb.get(k)) for k in big], file=sys.stderr)
sys.exit(0 if ok else 1)
PY
"$SHIMTOP" -i "$TMP/waits.rec" --batch --format folded -e offcpu-time >"$TMP/rec.folded" 2>"$TMP/err" ||
	fail "--format folded of offcpu-time failed: $(cat "$TMP/err")"
us=$(awk '/;nap_here;/ { s += $NF } END { print s + 0 }' "$TMP/rec.folded")
check "$TMP/rec.json" "abs($us / 1e6 - off('nap_here')) <= 0.001 * off('nap_here') + 0.001" \
	"folded offcpu-time under nap_here is $us us, not the JSON's seconds in microseconds"
if command -v go >/dev/null; then
	"$SHIMTOP" -i "$TMP/waits.rec" --export pprof -o "$TMP/rec.pb" 2>"$TMP/err" ||
		fail "--export pprof of an --off-cpu recording failed: $(cat "$TMP/err")"
	HOME=$TMP GOCACHE=$TMP/go-cache go tool pprof -sample_index=offcpu-time -top "$TMP/rec.pb" \
		>"$TMP/pprof.top" 2>"$TMP/pprof.err" || fail "go tool pprof: $(cat "$TMP/pprof.err")"
	grep -q "^Type: offcpu-time" "$TMP/pprof.top" || fail "pprof has no offcpu-time sample type:
$(head -5 "$TMP/pprof.top")"
	ms=$(awk '/ nap_here$/ { v = $4; sub(/ms$/, "", v); if ($4 ~ /s$/ && $4 !~ /ms$/) { sub(/s$/, "", v); v *= 1000 } print v }' "$TMP/pprof.top")
	check "$TMP/rec.json" "abs(${ms:-0} / 1e3 - off('nap_here')) <= 0.01 * off('nap_here')" \
		"pprof's offcpu-time under nap_here is ${ms:-no} ms, not the JSON's"
fi

# The diff compares waits: the nap's recording (A) against a lock's (B):
# nap_here's time goes (B's holder naps 1 ms in 11), wait_lock's comes
# (A waited 0 there); against
# a recording of no waits, nothing to compare ("-", null).
# (The waiter's second under wait_lock: 0.65 to 0.73 s in six runs, once 0.49; the
# unfair mutex lets the holder wait the rest.)
start_waits lockrec lock 60
"$SHIMTOP" --batch --off-cpu -o "$TMP/lock.rec" --duration 1 -p "$w" >/dev/null 2>"$TMP/err" ||
	fail "--off-cpu -o of the lock failed: $(cat "$TMP/err")"
kill "$w" 2>/dev/null
start_waits nowait nap 60
"$SHIMTOP" --batch -o "$TMP/nowait.rec" --duration 0.5 -p "$w" >/dev/null 2>"$TMP/err" ||
	fail "-o without --off-cpu failed: $(cat "$TMP/err")"
kill "$w" 2>/dev/null
"$SHIMTOP" -b -i "$TMP/waits.rec" --diff "$TMP/lock.rec" --format json >"$TMP/diff.json" \
	2>"$TMP/err" || fail "--diff of two --off-cpu recordings failed: $(cat "$TMP/err")"
"$SHIMTOP" -b -i "$TMP/waits.rec" --diff "$TMP/nowait.rec" --format json >"$TMP/diff-none.json" \
	2>"$TMP/err" || fail "--diff against a recording without waits failed: $(cat "$TMP/err")"
python3 - "$TMP/diff.json" "$TMP/diff-none.json" "$TMP/rec.json" <<'PY' ||
import json, sys
ab, an, a = (json.load(open(f)) for f in sys.argv[1:4])
rows = {r["symbol"]: r for r in ab["diff"]["rows"]}
none = {r["symbol"]: r for r in an["diff"]["rows"]}
nap = [r["offcpu_s"] for r in a["rows"] if r["symbol"] == "nap_here"][0]
n, w = rows["nap_here"], rows["wait_lock"]
ok = abs(n["a_offcpu_s"] - nap) <= 1e-6 and n["b_offcpu_s"] < 0.3 * nap and \
    abs(n["offcpu_change_s"] - (n["b_offcpu_s"] - nap)) <= 1e-6 and \
    w["a_offcpu_s"] == 0 and w["b_offcpu_s"] > 0.3 and w["offcpu_change_s"] == w["b_offcpu_s"] and \
    abs(none["nap_here"]["a_offcpu_s"] - nap) <= 1e-6 and none["nap_here"]["b_offcpu_s"] is None \
    and none["nap_here"]["offcpu_change_s"] is None
if not ok:
    print(n, w, none.get("nap_here"), file=sys.stderr)
sys.exit(0 if ok else 1)
PY
	fail "the diff's OFF A, OFF B and OFF CHG are not the recordings' waits"
"$SHIMTOP" -b -i "$TMP/waits.rec" --diff "$TMP/lock.rec" >"$TMP/diff.txt" 2>"$TMP/err" ||
	fail "--diff text of waits failed: $(cat "$TMP/err")"
grep -Eq "^ +A% +B% +CHANGE +OFF A +OFF B +OFF CHG +MODULE" "$TMP/diff.txt" ||
	fail "the text diff has no OFF columns: $(sed -n 3p "$TMP/diff.txt")"
grep -Eq " -[0-9.]+m?s +waits +nap_here" "$TMP/diff.txt" ||
	fail "nap_here's wait does not go in the text diff: $(grep nap_here "$TMP/diff.txt")"
"$SHIMTOP" -b -i "$TMP/nowait.rec" --diff "$TMP/nowait.rec" >"$TMP/diff-nowait.txt" 2>"$TMP/err" ||
	fail "--diff without waits failed: $(cat "$TMP/err")"
! grep -q "OFF A" "$TMP/diff-nowait.txt" || fail "a diff without waits shows OFF columns"

# Switches paired, none lost on a quiet target.
check "$TMP/nap.json" "d['source'].get('offcpu_unpaired', 0) <= d['source'].get('offcpu_waits', 0) // 100" \
	"more than 1% of the switches were never seen to end"

# Where the kernel allows BPF, switches are walked there too: sampled by
# the software event context-switches, the walker a program on those
# events alone (one on sched_switch would run for, and could filter out,
# every tool's samples of it), each one's state noted at sched_switch.
# perf record -e sched:sched_switch of the same target at the same time
# keeps its samples; the kernel walks most switches; states are told
# ("other" is a switch whose state was lost); with SHIMTOP_UNWIND_CHECK
# the kernel's walks agree with the copies' frame by frame, on tests/waits
# and on Debian's python3 asleep (no frame pointers).
if command -v perf >/dev/null; then
	"$WAITS" switch 60 2000 >"$TMP/sw.out" 2>&1 &	# killed after
	w=$!
	BG_PIDS="$BG_PIDS $w"
	sleep 0.5
	# Longer than shimtop's 2 s, so that a slow start on a loaded machine still covers them.
	perf record -q -e sched:sched_switch -p "$w" -o "$TMP/sw.data" -- sleep 3 >"$TMP/sw.perf" 2>&1 &
	p=$!
	"$SHIMTOP" --batch --format json --off-cpu --duration 2 -p "$w" >"$TMP/sw.json" 2>"$TMP/err" ||
		fail "--off-cpu beside perf record failed: $(cat "$TMP/err")"
	wait "$p" || fail "perf record beside shimtop failed: $(cat "$TMP/sw.perf")"
	theirs=$(perf script -i "$TMP/sw.data" -F tid 2>/dev/null | wc -l)
	SHIMTOP_UNWIND_CHECK=1 "$SHIMTOP" --batch --format json --off-cpu --duration 1 -p "$w" \
		>"$TMP/sw-check.json" 2>"$TMP/sw-check.err" ||
		fail "a checked --off-cpu failed: $(cat "$TMP/sw-check.err")"
	kill "$w" 2>/dev/null
	printf 'import time\nfor i in range(4000): time.sleep(0.0005)\n' >"$TMP/naps.py"
	SHIMTOP_UNWIND_CHECK=1 "$SHIMTOP" --batch --format json --off-cpu -- python3 "$TMP/naps.py" \
		>"$TMP/py-check.json" 2>"$TMP/py-check.err" || fail "a checked --off-cpu of python3 failed"
	# Under ASan the checked runs' model lags: their pairs compared, however few.
	pairs=300
	[ "${SHIMTOP_SANITIZED:-no}" = yes ] && pairs=30
	python3 - "$TMP/sw.json" "$theirs" "$pairs" "$TMP/sw-check.json" "$TMP/py-check.json" <<'PY' ||
import json, sys
d, theirs, pairs = json.load(open(sys.argv[1])), int(sys.argv[2]), int(sys.argv[3])
s, t = d['source'], d['tree']
ours = next(e['samples'] for e in s['sampled'] if e['event'] == 'offcpu-time')
waited = s['waited_s']
print(f"shimtop: {ours} switches ({t.get('kernel_walked', 0)} of {d['samples']} samples walked "
      f"in the kernel), perf record: {theirs}; waited {waited}")
ok = ours >= 1000 and theirs >= 0.7 * ours
ok = ok and waited['other'] <= 0.01 * sum(waited.values()) and waited['sleep'] > 0
if 'kernel_walk_off' not in t:
    ok = ok and t['kernel_walked'] >= 0.8 * d['samples']
for f in sys.argv[4:]:
    c = json.load(open(f))['tree']
    if 'kernel_check_same' not in c:
        continue
    same, differ = c['kernel_check_same'], c['kernel_check_differ']
    print(f"{f}: {same} of {same + differ} kernel walks agree with the copies'")
    ok = ok and same + differ >= pairs and same >= 0.999 * (same + differ)
sys.exit(0 if ok else 1)
PY
		fail "switches walked in the kernel: see above; $(grep 'kernel walk check' "$TMP/sw-check.err" "$TMP/py-check.err" | head -5)"
fi

# The text report's thread table shows where the time went.
start_waits text nap 60
"$SHIMTOP" --batch -H --off-cpu --duration 1 -p "$w" >"$TMP/text" 2>"$TMP/err" ||
	fail "-H --off-cpu failed: $(cat "$TMP/err")"
grep -Eq "^ +TID +PID COMMAND +SAMPLES +SHARE +IPC +ON-CPU +SLEEP .* WALL" "$TMP/text" ||
	fail "-H --off-cpu has no ON-CPU .. WALL columns: $(grep TID "$TMP/text")"
grep -Eq " OFF-CPU " "$TMP/text" || fail "the symbol table has no OFF-CPU column"
kill "$w" 2>/dev/null

# From perf.data: perf record's sched_switch samples with their stacks
# (the recipe a perf GUI's off-CPU view takes) and its switch records,
# read as live; against perf script's own reading of the same file.
if command -v perf >/dev/null; then
	# cpu-clock's own frequency, not -F, which would sample the
	# tracepoint by frequency too: past 1000 switches a second (naps and
	# a busy machine's preemptions) it would skip some, naps missing from
	# the ground truth.  -m 2048: 8 MiB of buffer, a second of 8 KiB
	# stacks, so a perf record starved by a busy machine loses none.
	perf record -q -m 2048 -e cpu-clock/freq=1000/ -e sched:sched_switch --switch-events \
		--call-graph dwarf -o "$TMP/perf.data" -- "$WAITS" nap 2 >"$TMP/perf.err" 2>&1 ||
		fail "perf record failed: $(cat "$TMP/perf.err")"
	own=$(sed -n 's/^nap \([0-9.]*\) spin.*$/\1/p' "$TMP/perf.err")
	"$SHIMTOP" -i "$TMP/perf.data" --batch --format json -s offcpu -e sched:sched_switch \
		>"$TMP/perf.json" 2>"$TMP/err" || fail "-i perf.data failed: $(cat "$TMP/err")"
	check "$TMP/perf.json" "abs(off('nap_here') / workers[0]['wall_s'] - ${own:-0.5}) <= 0.05" \
		"perf.data: off-CPU time under nap_here is not the thread's nap (${own:-?} of its life)"
	perf script -i "$TMP/perf.data" --show-switch-events -F comm,tid,time,event,ip,sym,dso \
		>"$TMP/perf.txt" 2>/dev/null
	python3 "$TESTS_DIR/offcpu_perf.py" "$TMP/perf.txt" "$TMP/perf.json" >"$TMP/overlap"
	python3 -c "import sys; sys.exit(float(open(sys.argv[1]).readline().split()[1]) < 0.95)" \
		"$TMP/overlap" || fail "off-CPU time per function differs from perf script's:
$(head -20 "$TMP/overlap")"
	# sched_switch recorded alone (no on-CPU event: not the recipe): each
	# sample one sample, as perf report counts it, unless --off-cpu asks
	# for waits; the note says which reading is shown.
	perf record -q -e sched:sched_switch -g -o "$TMP/alone.data" -- "$WAITS" nap 1 >/dev/null 2>&1 ||
		fail "perf record -e sched:sched_switch failed"
	want=$(perf script -i "$TMP/alone.data" -F event 2>/dev/null | grep -c sched_switch)
	"$SHIMTOP" -i "$TMP/alone.data" --batch >"$TMP/alone.txt" 2>"$TMP/err" ||
		fail "-i of sched_switch alone: $(cat "$TMP/err")"
	grep -q "^samples $want " "$TMP/alone.txt" ||
		fail "sched_switch alone: not perf script's $want samples: $(sed -n 2p "$TMP/alone.txt")"
	grep -q "^note: .*; sched:sched_switch read as one sample each, as perf report (--off-cpu reads" \
		"$TMP/alone.txt" || fail "sched_switch alone: the note says no reading: $(grep note "$TMP/alone.txt")"
	grep -q "^off-CPU:" "$TMP/alone.txt" && fail "sched_switch alone read as off-CPU time"
	"$SHIMTOP" -i "$TMP/alone.data" --off-cpu --batch >"$TMP/asked.txt" 2>"$TMP/err" ||
		fail "-i --off-cpu of sched_switch alone: $(cat "$TMP/err")"
	grep -q "^note: .*; sched:sched_switch read as off-CPU time (--off-cpu)$" "$TMP/asked.txt" ||
		fail "--off-cpu -i: the note: $(grep note "$TMP/asked.txt")"
	grep -q "^off-CPU: sleep [0-9.]* s" "$TMP/asked.txt" || fail "--off-cpu -i: no off-CPU line"
	"$SHIMTOP" -i "$TMP/perf.data" --batch >"$TMP/recipe.txt" 2>&1
	grep -q "^note: .*; sched:sched_switch read as off-CPU time (recorded beside an on-CPU event" \
		"$TMP/recipe.txt" || fail "the recipe's file: the note does not say off-CPU time"
	# perf record --off-cpu's event (named offcpu-time; its samples' periods
	# are their waits), made from a cpu-clock recording: every sample a wait
	# of its period, state not recorded ("other"), under its chain.
	perf record -q -e cpu-clock -g -o "$TMP/clock.data" -- "$WAITS" nap 1 >/dev/null 2>&1 ||
		fail "perf record -e cpu-clock failed"
	python3 "$TESTS_DIR/perf_rewrite.py" offcpu "$TMP/clock.data" "$TMP/offcpu.data"
	"$SHIMTOP" -i "$TMP/offcpu.data" --batch --format json -s offcpu >"$TMP/offcpu.json" 2>"$TMP/err" ||
		fail "-i of an offcpu-time recording failed: $(cat "$TMP/err")"
	check "$TMP/offcpu.json" "d['source']['events'] == 'offcpu-time' and d['source']['offcpu_waits'] == d['samples'] > 100" \
		"an offcpu-time recording's samples are not each a wait"
	# A sample whose chain is in a futex wait counts as a lock: the
	# state is not recorded, but the chain tells it.
	check "$TMP/offcpu.json" "abs(sum(d['source']['waited_s'].values()) - sum(r['weight'] for r in d['rows']) / 1e9) < 1e-6" \
		"an offcpu-time recording's waits are not its samples' periods"
	# Under spin_here: its samples and its callees' (a timer interrupt
	# taken there, more of them on a busy machine), its total.
	check "$TMP/offcpu.json" "abs(off('spin_here') - sym('spin_here')['total'] / 100 * sum(r['weight'] for r in d['rows']) / 1e9) < 0.005 and off('napper') >= off('spin_here')" \
		"an offcpu-time recording's waits are not under their chains"
fi

# In the UI, W turns it on in a running session: the thread table then
# has the nap's sleep, and e shows offcpu-time's shares; the tree (6) of
# offcpu-time alone, by time: nap_here's share its time's; the
# timeline's threads by their time on and off the CPU.
if command -v tmux >/dev/null; then
	start_waits ui nap 60
	ui_session -x 160 -y 40 "env LANG=C.UTF-8 '$SHIMTOP' -p $w 2>'$TMP/ui.err'; sleep 30"
	wait_for "SELF%" "the UI never showed its table"
	$T send-keys -t ui W
	wait_for "--off-cpu: every switch off a CPU sampled" "W said nothing of off-CPU samples"
	$T send-keys -t ui W
	wait_for "off-CPU samples are taken already" "a second W did not say they are taken"
	sleep 2
	$T send-keys -t ui H
	wait_for " SLEEP .* WALL " "H after W has no SLEEP and WALL columns"
	# The napping thread slept about a second of the 2 since W.
	screen | awk '/ SLEEP / { for (i = 1; i <= NF; i++) if ($i == "SLEEP") c = i; next }
		c && $1 ~ /^[0-9]+$/ && $2 != $1 { v = $c; sub(/s$/, "", v); if (v + 0 >= 0.5) ok = 1 }
		END { exit !ok }' || fail "the thread table's SLEEP after W is under 0.5 s:
$(screen)"
	$T send-keys -t ui 1 e
	wait_for "SELF% of offcpu-time" "e after W does not show offcpu-time"
	$T send-keys -t ui 6
	wait_for "TIME  CALL TREE  \([0-9]+ waits, [0-9.]+m?s off the CPU" "the tree of offcpu-time is not of waits"
	# By time: nap_here's share is its TIME over the title's, and the waits are all
	# the napper's own (asleep in nap_here, or preempted in spin_here: load moves
	# the split, not the sum) or the main thread's, asleep in usleep since before W.
	# (Its share is a third unloaded; two busy loops on two CPUs bring it to a quarter.)
	screen >"$TMP/tree.screen"
	python3 - "$TMP/tree.screen" <<'PY' || fail "the tree of waits is not by time: $(cat "$TMP/tree.screen")"
import re, sys
text = open(sys.argv[1]).read()
def secs(v):
    m = re.fullmatch(r"([0-9.]+)(s|ms|us)", v)
    return float(m.group(1)) * {"s": 1, "ms": 1e-3, "us": 1e-6}[m.group(2)]
total = secs(re.search(r"waits, (\S+) off the CPU", text).group(1))
rows = {l.split()[-1]: l.split() for l in text.splitlines() if re.match(r"^ *[0-9.]+% ", l)}
# The main thread's usleep, or (on a loaded host the napper's preemptions
# take more rows, and usleep's may be past the screen) main, which holds it.
nap, spin, main = rows["nap_here"], rows["spin_here"], rows.get("usleep", rows.get("main", ["0%"]))
share = float(nap[0].rstrip("%"))
print(f"nap_here {share}% {nap[2]}, spin_here {spin[0]} {spin[2]}, main {main[0]}, total {total} s")
sys.exit(not (abs(share - 100 * secs(nap[2]) / total) < 1.5 and
              share + float(spin[0].rstrip("%")) + float(main[0].rstrip("%")) >= 95 and
              share >= 10))
PY
	# The timeline (2): the napping thread's row, a bar of its share on the CPU.
	$T send-keys -t ui 2
	wait_for "^threads: the share of time on a CPU; off all of it: r waiting" \
		"the timeline has no thread states after W"
	quit_ui
	kill "$w" 2>/dev/null
fi

# Refusals: one line each, exit status 2 for a bad command line.
"$SHIMTOP" --batch -o "$TMP/own.rec" -- "$WAITS" nap 0.3 >/dev/null 2>&1 || fail "-o own.rec failed"
expect_run 2 "--off-cpu with -i reads a perf.data's sched:sched_switch samples as off-CPU time" -- \
	"$SHIMTOP" --batch --off-cpu -i "$TMP/own.rec"
expect_run 2 "--off-cpu samples beside perf events, not IBS" -- "$SHIMTOP" --off-cpu --ibs -a
expect_run 2 "--off-cpu: off-CPU samples go beside one event.*not a group" -- \
	"$SHIMTOP" --batch --off-cpu -e '{cpu-clock,task-clock}' -- true
# Without root: the tracepoint's samples are refused, saying what would allow them.
AS_NOBODY="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all"
if command -v setpriv >/dev/null && $AS_NOBODY test -x "$SHIMTOP" 2>/dev/null &&
   [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 0 ]; then
	cd "$TMP" && chmod 755 "$TMP"
	expect_run 1 "--off-cpu.*(tracefs is not readable|no permission).*(root|CAP_PERFMON)" -- \
		$AS_NOBODY "$SHIMTOP" --batch --off-cpu --duration 1 -- "$WAITS" nap 1
fi
finish
