#!/bin/sh
# t-options.sh - the perf- and top-style command line: targets (-a, -C,
# -p and -t lists, -u), -e groups, --list-events, -b/-n/-E/--stdio,
# -o/-i, perf's -s keys, --help; every bad value with its message and
# exit status.
. "$TESTS_DIR/lib.sh"

start_demo
A=$DEMO_PID
start_demo
B=$DEMO_PID
me=$(id -un)

# -a: every process, a row per process and symbol; the two demos, the
# idle task and shimtop itself at least.
"$SHIMTOP" -a -b --duration 1.5 --format json >"$TMP/all.json" 2>"$TMP/err" ||
	fail "-a failed: $(cat "$TMP/err")"
n=$(json_get "$TMP/all.json" "len({r['pid'] for r in d['rows'] if 'pid' in r and r['samples'] > 0})")
[ "${n:-0}" -ge 2 ] || fail "-a shows rows of $n processes, expected at least 2"
json_get "$TMP/all.json" "[r['pid'] for r in d['per_process'] if r['comm'] == 'shimtop-demo']" |
	grep -q "$A" || fail "-a: demo $A not in the per-process table: $(json_get "$TMP/all.json" \
	"(d['samples'], d.get('lost'), d['status'], [(p['pid'], p['comm'], p['samples']) for p in d['per_process'][:8]])")"
[ "$(json_get "$TMP/all.json" "d['target']")" = system-wide ] || fail "-a: target not system-wide"
# With nothing named, shimtop samples the system as perf top does.
"$SHIMTOP" -b --duration 0.5 -E 3 -P >"$TMP/text" 2>"$TMP/err" || fail "no target: $(cat "$TMP/err")"
grep -q "system-wide" "$TMP/text" || fail "no target: not system-wide: $(head -1 "$TMP/text")"
grep -Eq "^ +PID COMMAND +THREADS" "$TMP/text" || fail "-P: no per-process table: $(cat "$TMP/text")"
grep -Eq "PID COMMAND +NAMED BY +MODULE" "$TMP/text" || fail "-a: no PID COMMAND column"

# A system-wide recording reads back with its rows per process.
"$SHIMTOP" -a -b --duration 0.5 -o "$TMP/all.rec" >/dev/null 2>"$TMP/err" || fail "-a -o: $(cat "$TMP/err")"
"$SHIMTOP" -i "$TMP/all.rec" -b --format json >"$TMP/back.json" 2>"$TMP/err" || fail "-i of -a: $(cat "$TMP/err")"
[ "$(json_get "$TMP/back.json" "all('pid' in r for r in d['rows']) and d['target'] == 'system-wide'")" = True ] ||
	fail "a system-wide recording replayed without processes: $(json_get "$TMP/back.json" "d['rows'][:2]")"

# -C: restrict to CPUs; an offline or malformed list is refused.
"$SHIMTOP" -C 0 -b --duration 0.5 -E 2 >"$TMP/text" 2>"$TMP/err" || fail "-C 0: $(cat "$TMP/err")"
grep -q "system-wide, CPUs 0" "$TMP/text" || fail "-C 0 not in the header: $(head -1 "$TMP/text")"
expect_run 2 "CPU 1000 is not online \(online: " -- "$SHIMTOP" -b -C 1000
expect_run 2 "-C 'x' is not a CPU list" -- "$SHIMTOP" -b -C x
expect_run 2 "-C restricts" -- "$SHIMTOP" -b -C 0 -u "$me"

# -p lists: both processes, a row per process.
"$SHIMTOP" -p "$A,$B" -b --duration 1 --format json >"$TMP/pp.json" 2>"$TMP/err" ||
	fail "-p A,B: $(cat "$TMP/err")"
# (Compared as sets: pids wrap, so A may be the larger.)
[ "$(json_get "$TMP/pp.json" "{r['pid'] for r in d['rows']} >= {$A, $B}")" = True ] ||
	fail "-p $A,$B: rows of $(json_get "$TMP/pp.json" "sorted({r.get('pid') for r in d['rows']})")"
[ "$(json_get "$TMP/pp.json" "d['target']")" = "2 processes" ] || fail "-p A,B target name"
expect_run 2 "-p needs a list of ids" -- "$SHIMTOP" -b -p ""
expect_run 2 "ends with a comma" -- "$SHIMTOP" -b -p "$A,"
expect_run 2 "'x' is not a process or thread id" -- "$SHIMTOP" -b -p "$A,x"
expect_run 1 "no process with id 2147483646" -- "$SHIMTOP" -b -p 2147483646

# -t: only that thread; a thread of another process, or none, refused.
T=$(ls "/proc/$A/task" | head -1)
"$SHIMTOP" -t "$T" -b --duration 1 --format json >"$TMP/t.json" 2>"$TMP/err" || fail "-t: $(cat "$TMP/err")"
[ "$(json_get "$TMP/t.json" "sorted({t['tid'] for t in d['per_thread'] if t['samples']})")" = "[$T]" ] ||
	fail "-t $T sampled threads $(json_get "$TMP/t.json" "[t['tid'] for t in d['per_thread']]")"
expect_run 2 "thread $T belongs to process $A, not to $B" -- "$SHIMTOP" -b -p "$B" -t "$T"
# The second demo's last use: its CPU goes back to the tests beside this one.
kill "$B" && wait "$B" 2>/dev/null
expect_run 1 "no thread with id 2147483646" -- "$SHIMTOP" -b -t 2147483646
expect_run 2 "-t needs a list of ids" -- "$SHIMTOP" -b -t ""

# -u: the user's processes now.
"$SHIMTOP" -u "$me" -b --duration 1 --format json >"$TMP/u.json" 2>"$TMP/err" || fail "-u: $(cat "$TMP/err")"
json_get "$TMP/u.json" "d['target']" | grep -q "^user $me: [0-9]* processes" || fail "-u target name"
json_get "$TMP/u.json" "{r['pid'] for r in d['rows']}" | grep -q "$A" || fail "-u: demo $A not sampled: $(json_get "$TMP/u.json" \
	"(d['samples'], d.get('lost'), d['status'], [(p['pid'], p['comm'], p['samples']) for p in d['per_process'][:8]])")"
expect_run 2 "no user 'no-such-user-here'" -- "$SHIMTOP" -b -u no-such-user-here
expect_run 2 "give one target" -- "$SHIMTOP" -b -a -p "$A"
expect_run 2 "give one target" -- "$SHIMTOP" -b -p "$A" -- true

# -e: a group, perf's plain list (sampled first, counted rest, said), bad groups.
"$SHIMTOP" -p "$A" -b --duration 1 -e '{cpu-clock,page-faults}' --format json >"$TMP/g.json" 2>"$TMP/err" ||
	fail "-e group: $(cat "$TMP/err")"
[ "$(json_get "$TMP/g.json" "d['source']['events']")" = "cpu-clock,page-faults" ] || fail "-e group events"
[ "$(json_get "$TMP/g.json" "d['samples'] > 100")" = True ] || fail "-e group: no samples"
# -e a,b: each event samples on its own; every event's shares add up to
# 100 over all rows, SELF% is the first's; the events survive a recording.
"$SHIMTOP" -p "$A" -b --duration 1 -E 100000 -e 'cpu-clock,task-clock' -o "$TMP/sep.rec" \
	--format json >"$TMP/g.json" 2>"$TMP/err" || fail "-e a,b: $(cat "$TMP/err")"
[ "$(json_get "$TMP/g.json" "[(e['event'], e['samples'] > 50, e['shown']) for e in d['source']['sampled']]")" = \
  "[('cpu-clock', True, True), ('task-clock', True, False)]" ] ||
	fail "-e a,b sampled: $(json_get "$TMP/g.json" "d['source']['sampled']")"
[ "$(json_get "$TMP/g.json" "[round(sum(r['events'][e] for r in d['rows'])) for e in ('cpu-clock', 'task-clock')]")" = "[100, 100]" ] ||
	fail "-e a,b shares do not add up: $(json_get "$TMP/g.json" "d['rows'][:3]")"
[ "$(json_get "$TMP/g.json" "all(r['self'] == r['events']['cpu-clock'] for r in d['rows'])")" = True ] ||
	fail "-e a,b: SELF% is not cpu-clock's"
"$SHIMTOP" -i "$TMP/sep.rec" -b -E 3 >"$TMP/text" 2>"$TMP/err" || fail "-e a,b replay: $(cat "$TMP/err")"
grep -q "^sampled each: cpu-clock [0-9]* samples, task-clock [0-9]* samples; SELF% is of cpu-clock" "$TMP/text" ||
	fail "-e a,b replay header: $(head -4 "$TMP/text")"
grep -q "^  SELF% task-clock " "$TMP/text" || fail "-e a,b: no task-clock column: $(grep SELF "$TMP/text")"
# Events of different kinds: a command that faults its pages in.
"$SHIMTOP" -b -e 'cpu-clock,page-faults' --format json -- \
	python3 -c 'b = b"x" * (64 << 20)' >"$TMP/pf.json" 2>"$TMP/err" || fail "-e cpu-clock,page-faults: $(cat "$TMP/err")"
[ "$(json_get "$TMP/pf.json" "d['source']['sampled'][1]['samples'] > 0")" = True ] ||
	fail "no page-fault samples: $(json_get "$TMP/pf.json" "d['source']['sampled']")"
# Six sampled live, each its own (perf 3.4's files hold as many).
"$SHIMTOP" -b --duration 1 -p "$A" --format json \
	-e cpu-clock,task-clock,page-faults,minor-faults,context-switches,cpu-migrations \
	>"$TMP/six.json" 2>"$TMP/err" || fail "-e with six events: $(cat "$TMP/err")"
[ "$(json_get "$TMP/six.json" "[e['event'] for e in d['source']['sampled']][4:] == ['context-switches', 'cpu-migrations'] and d['source']['sampled'][1]['samples'] > 100")" = True ] ||
	fail "-e with six events sampled: $(json_get "$TMP/six.json" "d['source']['sampled']")"
nine=$(printf 'cpu-clock,%.0s' $(seq 8))task-clock
expect_run 2 "at most 8 events in -e; drop some" -- "$SHIMTOP" -b -p "$A" -e "$nine"
expect_run 2 "at most 8 events in -e; drop some" -- "$SHIMTOP" -b -p "$A" -e "{$nine}"
expect_run 2 "samples one group" -- "$SHIMTOP" -b -p "$A" -e '{cpu-clock},{task-clock}'
expect_run 2 "samples one group" -- "$SHIMTOP" -b -p "$A" -e '{cpu-clock'
expect_run 2 "must be the whole -e" -- "$SHIMTOP" -b -p "$A" -e 'cpu-clock,{task-clock}'
expect_run 2 "unknown event 'cpu-clok'.*shimtop --list-events" -- "$SHIMTOP" -b -p "$A" -e cpu-clok
# A hardware group where there is no PMU: said, and cpu-clock sampled.
SHIMTOP_NO_PMU=1 "$SHIMTOP" -p "$A" -b --duration 0.5 -e '{cycles,instructions}' >"$TMP/text" 2>"$TMP/err" ||
	fail "hardware group without a PMU: $(cat "$TMP/err")"
grep -q "needs a hardware PMU" "$TMP/err" || fail "no PMU not said: $(cat "$TMP/err")"

# --list-events: perf list's role.
"$SHIMTOP" --list-events >"$TMP/ev" 2>"$TMP/err" || fail "--list-events failed: $(cat "$TMP/err")"
grep -Eq "^  cpu-clock +available" "$TMP/ev" || fail "--list-events lacks cpu-clock: $(head "$TMP/ev")"
grep -Eq "^[0-9]+ events, [0-9]+ available here" "$TMP/ev" || fail "--list-events has no total"

# Batch as top and perf: -b, -n iterations, -E entries, --stdio.
"$SHIMTOP" -p "$A" -b -d 0.3 -n 3 -E 2 >"$TMP/text" 2>"$TMP/err" || fail "-n 3: $(cat "$TMP/err")"
[ "$(grep -c "^  SELF%" "$TMP/text")" -eq 3 ] || fail "-n 3 printed $(grep -c "^  SELF%" "$TMP/text") tables"
[ "$(grep -c "shimtop-demo  *phase_\|shimtop-demo  *recurse\|shimtop-demo  *build" "$TMP/text")" -le 6 ] ||
	fail "-E 2 printed more than 2 rows per table"
"$SHIMTOP" -p "$A" --stdio --duration 0.5 -E 1 >"$TMP/text" 2>"$TMP/err" || fail "--stdio: $(cat "$TMP/err")"
[ "$(sed -n '/SELF%/,$p' "$TMP/text" | grep -c .)" -eq 2 ] || fail "--stdio -E 1: $(cat "$TMP/text")"
expect_run 2 "-n counts batch reports" -- "$SHIMTOP" -p "$A" -n 2
expect_run 2 "-n needs a positive number of iterations" -- "$SHIMTOP" -b -n 0
expect_run 2 "-E needs a positive row count" -- "$SHIMTOP" -b -E -1

# -o and -i: record, then the same table read back.
"$SHIMTOP" -p "$A" -b --duration 1 -o "$TMP/rec" --format json >"$TMP/live.json" 2>"$TMP/err" ||
	fail "-o: $(cat "$TMP/err")"
kill "$A" && wait "$A" 2>/dev/null	# the last sampled: what follows reads files
"$SHIMTOP" -i "$TMP/rec" -b --format json >"$TMP/back.json" 2>"$TMP/err" || fail "-i: $(cat "$TMP/err")"
[ "$(json_get "$TMP/live.json" "d['samples']")" = "$(json_get "$TMP/back.json" "d['samples']")" ] ||
	fail "-i read back another sample count"
printf 'not a recording at all' >"$TMP/foreign"
expect_run 1 "is not a recording shimtop reads" -- "$SHIMTOP" -i "$TMP/foreign" -b
expect_run 2 "-i shows a file: it takes no -o" -- "$SHIMTOP" -i "$TMP/rec" -o "$TMP/x" -b

# -s: perf's keys (ordered by overhead, a row per process with pid),
# today's names (ordered by that column), bad keys.
"$SHIMTOP" -i "$TMP/rec" -b -s pid,sym --format json >"$TMP/s.json" 2>"$TMP/err" || fail "-s pid,sym: $(cat "$TMP/err")"
python3 - "$TMP/s.json" "$A" <<'PY' || fail "-s pid,sym: see above"
import json, sys
d = json.load(open(sys.argv[1]))
# Overhead is the sampled time (each cpu-clock sample's period varies), not the count.
w = [r['self'] for r in d['rows']]
if w != sorted(w, reverse=True):
    sys.exit(f"-s pid,sym rows not ordered by overhead: {w[:8]}")
if not all(r.get('pid') == int(sys.argv[2]) for r in d['rows']):
    sys.exit("-s pid,sym rows lack the process id")
PY
# -s comm: a command run as many processes (forker's children) is one
# row per symbol, as perf report -s comm,sym; -s pid splits them.  The
# thread and process arrays with what they leave out cover every sample.
"$SHIMTOP" -b --duration 2 -c 250000 -o "$TMP/fork.rec" -- "$TESTS_BIN/forker" --rate 50 \
	--seconds 3 >/dev/null 2>"$TMP/err" || fail "forker: $(cat "$TMP/err")"
"$SHIMTOP" -i "$TMP/fork.rec" -b -s comm,sym --format json >"$TMP/comm.json" 2>"$TMP/err" ||
	fail "-s comm,sym: $(cat "$TMP/err")"
"$SHIMTOP" -i "$TMP/fork.rec" -b -s pid,sym --format json >"$TMP/pid.json" 2>"$TMP/err" ||
	fail "-s pid,sym: $(cat "$TMP/err")"
python3 - "$TMP/comm.json" "$TMP/pid.json" <<'PY' || fail "-s comm: see above"
import json, sys
comm, pid = (json.load(open(f)) for f in sys.argv[1:3])
by_pid = [r for r in pid['rows'] if r['symbol'] == 'child_work']
if len(by_pid) < 2:
    sys.exit(f"-s pid: child_work in {len(by_pid)} process rows; the test needs several")
by_comm = [r for r in comm['rows'] if r['symbol'] == 'child_work']
if len(by_comm) != 1 or 'pid' in by_comm[0] or by_comm[0]['comm'] != 'forker':
    sys.exit(f"-s comm: child_work rows {by_comm[:3]}, expected one of command forker")
if by_comm[0]['processes'] < len(by_pid) or by_comm[0]['samples'] != sum(r['samples'] for r in by_pid):
    sys.exit(f"-s comm: {by_comm[0]} does not hold the {len(by_pid)} process rows")
for d in comm, pid:
    rest = d['not_listed']
    if sum(t['samples'] for t in d['per_thread']) + rest['threads']['samples'] != d['samples']:
        sys.exit(f"threads listed and not listed do not add up to {d['samples']}: {rest}")
    if sum(p['samples'] for p in d['per_process']) + rest['processes']['samples'] != d['samples']:
        sys.exit(f"processes do not add up to {d['samples']}: {rest}")
    if any(t['samples'] == 0 or t['pid'] == 0 for t in d['per_thread']):
        sys.exit("a thread without samples is listed")
    if any(p['threads'] < 1 for p in d['per_process']):
        sys.exit("a process lists no threads: " + str([p for p in d['per_process'] if p['threads'] < 1][:3]))
PY
"$SHIMTOP" -i "$TMP/fork.rec" -b -s comm >"$TMP/text" 2>"$TMP/err" || fail "-s comm text: $(cat "$TMP/err")"
grep -Eq "^ +SELF% +SAMPLES +IPC  COMMAND +NAMED BY" "$TMP/text" ||
	fail "-s comm: no COMMAND column: $(sed -n 6p "$TMP/text")"
"$SHIMTOP" -i "$TMP/rec" -b -s symbol --format json >"$TMP/s.json" 2>"$TMP/err"
[ "$(json_get "$TMP/s.json" "[r['symbol'] for r in d['rows']] == sorted(r['symbol'] for r in d['rows'])")" = True ] ||
	fail "-s symbol does not order by name"
"$SHIMTOP" -i "$TMP/rec" -b -s overhead,dso,sym >"$TMP/text" 2>"$TMP/err" || fail "-s overhead,dso,sym: $(cat "$TMP/err")"
expect_run 2 "unknown sort key 'bogus'" -- "$SHIMTOP" -b -s sym,bogus
expect_run 2 "-s takes at most 4 keys" -- "$SHIMTOP" -b -s sym,dso,pid,ipc,self

# --help: what shimtop is, examples, environment, exit statuses, keys.
"$SHIMTOP" --help >"$TMP/help" || fail "--help failed"
for want in "^shimtop - a live performance microscope" "^examples:" "NO_COLOR" "SHIMTOP_THEMES" \
	"DEBUGINFOD_URLS" "XDG_CONFIG_HOME" "^exit status:" "^Keys: F1" "--all-cpus" "--list-events"; do
	grep -Eq -- "$want" "$TMP/help" || fail "--help lacks /$want/"
done

# Options that take a value, given none (or another option in its place),
# and options a recording or --serve cannot use: named, one line, exit 2.
for opt in --serve --memory --symfs --serve-token --serve-top --export --history --range; do
	expect_run 2 "^shimtop: $opt needs a value; see shimtop --help\$" -- "$SHIMTOP" "$opt"
done
expect_run 2 "^shimtop: -p needs a value; see shimtop --help\$" -- "$SHIMTOP" -p
expect_run 2 "^shimtop: unknown option -Z; see" -- "$SHIMTOP" -Z
expect_run 2 "^shimtop: unknown option '--bogus'; see" -- "$SHIMTOP" --bogus
expect_run 2 "^shimtop: --serve-token needs a value, not the option '--serve' after it" -- \
	"$SHIMTOP" --serve-token --serve 9464
expect_run 2 "^shimtop: -o needs a value, not the option '--demo' after it" -- "$SHIMTOP" -o --demo
"$TESTS_BIN/gen_records" chains "$TMP/chains.rec" >/dev/null || fail "gen_records chains"
for opt in "-e cycles,instructions" "-F 99" "-c 1000" "--call-graph dwarf" "--no-randomize"; do
	# shellcheck disable=SC2086
	expect_run 2 "^shimtop: ${opt%% *} chooses how samples are taken; a recording \(-i\) was sampled already: drop it" -- \
		"$SHIMTOP" -b -i "$TMP/chains.rec" $opt
done
# One event's name picks which recorded event is shown: a group's leader
# is what sampled; another is refused, naming what the recording holds.
"$SHIMTOP" -b -i "$TMP/chains.rec" -e cycles >/dev/null 2>"$TMP/err" || fail "-i -e cycles: $(cat "$TMP/err")"
expect_run 2 "^shimtop: -e page-faults: '$TMP/chains.rec' sampled cycles,instructions; with -i, -e names one of them to show\$" -- \
	"$SHIMTOP" -b -i "$TMP/chains.rec" -e page-faults
expect_run 2 "^shimtop: -i shows a recording's observer samples; it runs no observer" -- \
	"$SHIMTOP" -b -i "$TMP/chains.rec" --observe
expect_run 2 "^shimtop: -i given twice \('$TMP/chains.rec', then '$TMP/other.rec'\)" -- \
	"$SHIMTOP" -b -i "$TMP/chains.rec" -i "$TMP/other.rec"
expect_run 2 "^shimtop: --serve draws nothing and prints no report: drop -b" -- \
	"$SHIMTOP" --serve 0 -b --demo
# What reads a recording again is taken: CallerChaining's and auto's modes.
"$SHIMTOP" -b -i "$TMP/chains.rec" --call-graph auto >/dev/null 2>"$TMP/err" ||
	fail "-i with --call-graph auto: $(cat "$TMP/err")"
# -i of what is no recording: said what it is.
expect_run 1 "^shimtop: '/etc' is a directory, not a recording shimtop reads \(its own from -o, a snapshot, or perf record's perf.data, gzip'd or not\)\$" -- \
	"$SHIMTOP" -b -i /etc
expect_run 1 "^shimtop: '/dev/null' is empty, not a recording shimtop reads" -- "$SHIMTOP" -b -i /dev/null
finish

