#!/bin/sh
# t-snapshot.sh - snapshots of the demo: --snapshot-on-exit beside the
# live JSON report, then -i on the snapshot prints the same rows, tree
# and threads; saved again from the snapshot, every section but the
# report (its elapsed time) is identical (the round trip); a range, a
# diff and an export read it; SIGUSR1 writes one while batch runs (two
# in one second, two files); the UI's s writes one that reopens with the
# same top rows and a timeline, and where it cannot write says so and
# goes on.  The observer's figures
# (report, tags view, gauges) and CallerChaining's come back as they were.
# Bad input: truncated, newer version, damaged, foreign and empty files
# (one line, exit 1), and a --snapshot-on-exit path nobody can write
# (the report still printed, exit 1).
. "$TESTS_DIR/lib.sh"

SECTIONS="$TESTS_BIN/snapshot_sections"
"$SHIMTOP" -b --format json --snapshot-on-exit "$TMP/a.snap" -- \
	"$SHIMTOP_DEMO" --seconds 1.5 >"$TMP/live.json" 2>"$TMP/err" ||
	fail "--snapshot-on-exit: $(cat "$TMP/err")"
grep -Eq "^shimtop: snapshot $TMP/a.snap \([0-9.]+ (kB|MB) in [0-9.]+ s\)$" "$TMP/err" ||
	fail "no line says where the snapshot went: $(cat "$TMP/err")"
"$SHIMTOP" -b -i "$TMP/a.snap" --format json >"$TMP/snap.json" 2>"$TMP/err" ||
	fail "-i on a snapshot: $(cat "$TMP/err")"
python3 - "$TMP/live.json" "$TMP/snap.json" <<'PY' || fail "the snapshot's report differs from the live one"
import json, sys
live, snap = (json.load(open(f)) for f in sys.argv[1:3])
def rows(d):
    return [(r['module'], r['symbol'], r['samples'], round(r['self'], 6)) for r in d['rows']]
assert rows(live) == rows(snap), (rows(live)[:5], rows(snap)[:5])
assert live['samples'] == snap['samples'] > 1000
# Its span is the session's (a reader once said 0.1 s of 13 s).
assert abs(live['elapsed'] - snap['elapsed']) < 0.1 and snap['elapsed'] > 1, \
    (live['elapsed'], snap['elapsed'])
assert snap['status'] == 'end of recording after %.1f s' % snap['elapsed'], snap['status']
tree = lambda d: sorted((n['name'], n['self'], n['total']) for n in d['tree']['nodes'])
assert tree(live) == tree(snap), 'the tree'
threads = lambda d: [(t['tid'], t['comm'], t['samples']) for t in d['per_thread']]
assert threads(live) == threads(snap), (threads(live), threads(snap))
PY
"$SHIMTOP" -b -i "$TMP/a.snap" >"$TMP/snap.txt" 2>&1 || fail "text of a snapshot"
grep -Eq "^snapshot taken [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8} UTC on .+" "$TMP/snap.txt" ||
	fail "the report does not say when and where the snapshot was taken: $(head -5 "$TMP/snap.txt")"

# The meta data: where, what, and the build of each file the names came from.
"$SECTIONS" "$TMP/a.snap" meta >"$TMP/meta.json" || fail "no meta section"
build_id=$(readelf -n "$SHIMTOP_DEMO" 2>/dev/null | sed -n 's/.*Build ID: *//p')
python3 - "$TMP/meta.json" "$SHIMTOP_DEMO" "$build_id" <<'PY' || fail "the meta section: $(cat "$TMP/meta.json")"
import json, os, sys
m = json.load(open(sys.argv[1]))
assert m['format'] == 'shimtop snapshot' and m['version'] == 4
assert m['host'] == os.uname().nodename and m['kernel'] == os.uname().release
assert m['comm'] == 'shimtop-demo' and m['samples'] > 1000 and m['taken'] >= m['started']
assert m['options']['call_graph'] == 'auto' and m['options']['stack_copy'] == 8192
demo = [x for x in m['modules'] if os.path.realpath(x['path']) == os.path.realpath(sys.argv[2])]
assert demo, m['modules']
assert not sys.argv[3] or demo[0]['build_id'] == sys.argv[3], (demo, sys.argv[3])
PY

# The round trip: saved from the snapshot, the same content.
"$SHIMTOP" -b -i "$TMP/a.snap" --snapshot-on-exit "$TMP/b.snap" >/dev/null 2>"$TMP/err" ||
	fail "a snapshot of a snapshot: $(cat "$TMP/err")"
"$SECTIONS" "$TMP/a.snap" | grep -v '^report ' >"$TMP/a.sections"
"$SECTIONS" "$TMP/b.snap" | grep -v '^report ' >"$TMP/b.sections"
[ "$(wc -l <"$TMP/a.sections")" -eq 5 ] || fail "sections: $(cat "$TMP/a.sections")"
cmp -s "$TMP/a.sections" "$TMP/b.sections" ||
	fail "saved again, the snapshot differs: $(diff "$TMP/a.sections" "$TMP/b.sections")"

# A time range, a diff and an export of a snapshot.
"$SHIMTOP" -b -i "$TMP/a.snap" --range 0:0.5 --format json >"$TMP/range.json" 2>"$TMP/err" ||
	fail "--range of a snapshot: $(cat "$TMP/err")"
[ "$(json_get "$TMP/range.json" "0 < d['samples'] < 0.6 * $(json_get "$TMP/snap.json" "d['samples']")")" = True ] ||
	fail "the range of a snapshot is not a part of it"
"$SHIMTOP" -b -i "$TMP/a.snap" --diff "$TMP/b.snap" --format json >"$TMP/diff.json" 2>"$TMP/err" ||
	fail "--diff of snapshots: $(cat "$TMP/err")"
[ "$(json_get "$TMP/diff.json" "max(abs(r['change']) for r in d['diff']['rows'])")" = "0.0" ] ||
	fail "a snapshot and its copy differ"
"$SHIMTOP" -i "$TMP/a.snap" --export folded >"$TMP/folded" 2>"$TMP/err" ||
	fail "--export of a snapshot: $(cat "$TMP/err")"
grep -q "^main;run_phases;phase_recursive;recurse_tree" "$TMP/folded" ||
	grep -q ";main;run_phases;phase_recursive;recurse_tree" "$TMP/folded" ||
	fail "the snapshot's folded stacks lack the recursion: $(head -3 "$TMP/folded")"
# pprof's time_nanos: the first sample's wall-clock time, between the
# snapshot's start and its taking (the meta data's seconds).
"$SHIMTOP" -i "$TMP/a.snap" --export pprof -o "$TMP/a.pb.gz" 2>"$TMP/err" ||
	fail "--export pprof of a snapshot: $(cat "$TMP/err")"
if command -v go >/dev/null; then
	HOME=$TMP GOCACHE=$TMP/go-cache go tool pprof -raw "$TMP/a.pb.gz" >"$TMP/raw" 2>"$TMP/err" ||
		fail "go tool pprof cannot read the snapshot's export: $(cat "$TMP/err")"
	python3 - "$TMP/raw" "$TMP/meta.json" <<'PY' || fail "the export's time: $(head -5 "$TMP/raw")"
import datetime, json, re, sys
m = json.load(open(sys.argv[2]))
t = re.search(r'^Time: (\S+ \d\d:\d\d:\d\d)', open(sys.argv[1]).read(), re.M).group(1)
when = datetime.datetime.strptime(t, '%Y-%m-%d %H:%M:%S')
iso = lambda s: datetime.datetime.strptime(s[:19], '%Y-%m-%dT%H:%M:%S')
assert iso(m['started']) - datetime.timedelta(seconds=1) <= when <= iso(m['taken']), (t, m['started'], m['taken'])
PY
fi

# SIGUSR1 while batch runs: a snapshot named by the time, in the directory.
# The session lasts as long as the demo's 3.2 s of its own CPU time after
# its set-up, which a loaded machine stretches: the signals come within
# 1.4 s of the set-up's end.
mkdir "$TMP/usr1"
(cd "$TMP/usr1" && exec "$SHIMTOP" -b -- "$SHIMTOP_DEMO" --rounds 8 \
	--ready-file "$TMP/usr1-ready" >/dev/null 2>"$TMP/usr1.err") &
SH_PID=$!
BG_PIDS="$BG_PIDS $SH_PID"
# The demo runs once shimtop samples, so its signal handlers are in place.
i=0
while [ ! -e "$TMP/usr1-ready" ] && [ $i -lt 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
sleep 0.3
# Two in one second (sent just after a second begins): two files.
while [ "$(date +%N | cut -c1)" -ge 2 ]; do sleep 0.02; done
kill -USR1 "$SH_PID"
sleep 0.3
kill -USR1 "$SH_PID"
wait "$SH_PID" || fail "shimtop after SIGUSR1: $(cat "$TMP/usr1.err")"
[ "$(ls "$TMP"/usr1/shimtop-*.snap | wc -l)" -eq 2 ] ||
	fail "two SIGUSR1 made $(ls "$TMP"/usr1/shimtop-*.snap | wc -l) snapshot(s): $(cat "$TMP/usr1.err")"
snap=$(ls "$TMP"/usr1/shimtop-*.snap 2>/dev/null | head -1)
[ -n "$snap" ] || fail "SIGUSR1 wrote no snapshot: $(cat "$TMP/usr1.err")"
grep -q "^shimtop: snapshot shimtop-.*\.snap (" "$TMP/usr1.err" || fail "SIGUSR1: $(cat "$TMP/usr1.err")"
[ -n "$snap" ] && { "$SHIMTOP" -b -i "$snap" >/dev/null 2>"$TMP/err" || fail "the SIGUSR1 snapshot: $(cat "$TMP/err")"; }

# snapshot_beside_live NAME SECONDS OPTION...: the demo for SECONDS under
# shimtop -b --format json OPTION... --snapshot-on-exit $TMP/NAME.snap,
# then -i on the snapshot: the reports in $TMP/NAME-live.json and
# $TMP/NAME-snap.json.
snapshot_beside_live() {
	name=$1 secs=$2
	shift 2
	"$SHIMTOP" -b --format json "$@" --snapshot-on-exit "$TMP/$name.snap" -- \
		"$SHIMTOP_DEMO" --seconds "$secs" >"$TMP/$name-live.json" 2>"$TMP/err" ||
		fail "$* --snapshot-on-exit: $(cat "$TMP/err")"
	"$SHIMTOP" -b -i "$TMP/$name.snap" --format json >"$TMP/$name-snap.json" 2>"$TMP/err" ||
		fail "-i on the snapshot of $*: $(cat "$TMP/err")"
}

# The observer: its statistics, histograms and timeline are kept (its
# samples are not), so the snapshot's report says what the live one did.
snapshot_beside_live o 1.5 --observe
python3 - "$TMP/o-live.json" "$TMP/o-snap.json" <<'PY' || fail "the observer's figures differ in the snapshot"
import json, sys
live, snap = (json.load(open(f))['observer'] for f in sys.argv[1:3])
assert live['taken'] > 1000, live['taken']
# Said by the observer itself, not by what it measured.
for k in ('note', 'produced', 'ring_dropped'):
    live.pop(k, None)
    snap.pop(k, None)
assert live == snap, [k for k in live if live[k] != snap.get(k)]
assert {t['name'] for t in snap['tags']} >= {'compute', 'pointer_chase', 'branchy', 'recursive'}
PY
"$SHIMTOP" -b -i "$TMP/o.snap" --snapshot-on-exit "$TMP/o2.snap" >/dev/null 2>"$TMP/err" ||
	fail "an observer's snapshot saved again: $(cat "$TMP/err")"
"$SECTIONS" "$TMP/o.snap" | grep -v '^report ' >"$TMP/o.sections"
"$SECTIONS" "$TMP/o2.snap" | grep -v '^report ' >"$TMP/o2.sections"
grep -q "^observer " "$TMP/o.sections" || fail "no observer section: $(cat "$TMP/o.sections")"
cmp -s "$TMP/o.sections" "$TMP/o2.sections" ||
	fail "saved again, the observer's snapshot differs: $(diff "$TMP/o.sections" "$TMP/o2.sections")"
# Its section cut short: one line, exit 1.
"$SECTIONS" "$TMP/o.snap" observer 1000 "$TMP/ocut.snap" || fail "cutting the observer section"
expect_run 1 "snapshot '$TMP/ocut.snap': the observer.* the file is corrupt" -- \
	"$SHIMTOP" -b -i "$TMP/ocut.snap"

# Stack depths (--call-graph dwarf) are not in the records: CallerChaining's
# input is kept, so the rebuilt tree and its agreement come back the same.
snapshot_beside_live c 1 --call-graph dwarf
python3 - "$TMP/c-live.json" "$TMP/c-snap.json" <<'PY' || fail "CallerChaining differs in the snapshot"
import json, sys
live, snap = (json.load(open(f))['callerchain'] for f in sys.argv[1:3])
assert live['samples'] > 500 and live['nodes'] > 5, live
assert live == snap, [k for k in live if live[k] != snap.get(k)]
PY

# Bad input.
size=$(wc -c <"$TMP/a.snap")
head -c $((size / 2)) "$TMP/a.snap" >"$TMP/half.snap"
expect_run 1 "snapshot '$TMP/half.snap': the file is truncated: it ends without its end marker" -- \
	"$SHIMTOP" -b -i "$TMP/half.snap"
cp "$TMP/a.snap" "$TMP/v9.snap"
printf '\011' | dd of="$TMP/v9.snap" bs=1 seek=8 conv=notrunc 2>/dev/null
expect_run 1 "snapshot '$TMP/v9.snap': snapshot version 9 is newer than this shimtop reads \(4\)" -- \
	"$SHIMTOP" -b -i "$TMP/v9.snap"
cp "$TMP/a.snap" "$TMP/bad.snap"
printf 'XXXXXXXX' | dd of="$TMP/bad.snap" bs=1 seek=$((size - 40)) conv=notrunc 2>/dev/null
expect_run 1 "snapshot '$TMP/bad.snap': the file is corrupt: its checksum disagrees" -- \
	"$SHIMTOP" -b -i "$TMP/bad.snap"
: >"$TMP/empty.snap"
expect_run 1 "$TMP/empty.snap" -- "$SHIMTOP" -b -i "$TMP/empty.snap"
expect_run 1 "/bin/sh" -- "$SHIMTOP" -b -i /bin/sh
# An unwritable path: the report still comes, the error is one line, exit 1.
"$SHIMTOP" -b --snapshot-on-exit "$TMP/none/x.snap" -- "$SHIMTOP_DEMO" --seconds 0.5 \
	>"$TMP/report.txt" 2>"$TMP/err"
[ $? -eq 1 ] || fail "an unwritable snapshot path did not exit 1"
grep -q "cannot write snapshot $TMP/none/x.snap: No such file or directory; choose another path" \
	"$TMP/err" || fail "the unwritable path's error: $(cat "$TMP/err")"
grep -q "phase_" "$TMP/report.txt" || fail "the report was lost with the snapshot"

# The UI: s writes a snapshot; -i on it shows the same top rows, and the timeline.
command -v tmux >/dev/null || { finish; exit; }
"$SHIMTOP" --batch --record "$TMP/rec" -- "$SHIMTOP_DEMO" --seconds 1 >/dev/null 2>&1 ||
	fail "recording the demo"
mkdir "$TMP/ui"
replay_ui "$TMP/rec" 120 30 "$TMP/ui"
# The table refreshed after the end: the phases lead it.
wait_for "^ +[0-9.]+% +([0-9.]+% +)?[0-9]+ .* phase_[a-z_]+\$"
top=$(screen | grep -E "^ +[0-9.]+% " | head -3)
$T send-keys -t ui s
wait_for "snapshot shimtop-[0-9]+-[0-9]+\.snap \("
quit_ui
snap=$(ls "$TMP"/ui/shimtop-*.snap 2>/dev/null | head -1)
[ -n "$snap" ] || fail "s wrote no snapshot"
# The UI's pumps leave a sample whose file's symbols are being read by
# the worker in the ring and come back to it: what it took is what a
# batch replay takes, every sample, row and node.
"$SHIMTOP" -b -i "$TMP/rec" --format json >"$TMP/rec.json" 2>"$TMP/err" ||
	fail "batch replay: $(cat "$TMP/err")"
[ -n "$snap" ] && "$SHIMTOP" -b -i "$snap" --format json >"$TMP/ui-snap.json" 2>"$TMP/err" ||
	fail "the UI's snapshot: $(cat "$TMP/err")"
python3 - "$TMP/rec.json" "$TMP/ui-snap.json" <<'PY' || fail "the UI took the recording otherwise than batch"
import json, sys
rec, ui = (json.load(open(f)) for f in sys.argv[1:3])
rows = lambda d: [(r['module'], r['symbol'], r['samples']) for r in d['rows']]
assert rec['samples'] == ui['samples'] > 1000, (rec['samples'], ui['samples'])
assert rows(rec) == rows(ui), (rows(rec)[:5], rows(ui)[:5])
tree = lambda d: sorted((n['name'], n['self'], n['total']) for n in d['tree']['nodes'])
assert tree(rec) == tree(ui), 'the tree'
PY
replay_ui "$snap" 120 30
wait_for "snapshot of pid [0-9]+ \(shimtop-demo\)  taken [0-9-]+ [0-9:]+ UTC on "
wait_for "^ +[0-9.]+% +([0-9.]+% +)?[0-9]+ .* phase_[a-z_]+\$"
[ "$(screen | grep -E "^ +[0-9.]+% " | head -3)" = "$top" ] ||
	fail "the snapshot's top rows differ: $top / $(screen | grep -E "^ +[0-9.]+% " | head -3)"
$T send-keys -t ui 2
wait_for "^timeline  100 ms a column"
# Its detail disassembles the code the snapshot kept, each instruction
# with its samples again, jumps named (the demo's file is not read).
$T send-keys -t ui 1 / phase_compute Enter Enter
wait_for "^disassembly: [0-9]+ instructions at 0x[0-9a-f]+, ([1-9][0-9]*) of \\1 samples on them" \
	"a snapshot's detail has no disassembly with its samples"
wait_for "^ +[0-9.]+% +[0-9]+ +[0-9a-f]+: +[a-z]+" "a snapshot's instructions have no samples"
wait_for "j[a-z]+ +0x[0-9a-f]+ <phase_compute\+0x[0-9a-f]+>" "a snapshot's jumps are not named"
quit_ui
# A snapshot of version 3 (stand-ins 16 bytes apart, no code) still opens
# with its names.
"$SHIMTOP" -b -i "$TESTS_DIR/fuzz/corpus/fuzz_snapshot/chains-v3.snap" >"$TMP/v3.txt" 2>&1 ||
	fail "a version 3 snapshot: $(cat "$TMP/v3.txt")"
grep -Eq "^ +[0-9.]+% .* gen_fn_b\$" "$TMP/v3.txt" || fail "a version 3 snapshot's names: $(cat "$TMP/v3.txt")"

# s where nothing can be written (the working directory is gone): the
# footer says why and asks where, at 80 columns; a path typed there is
# written; Esc gives up; the session goes on.
mkdir "$TMP/gone"
replay_ui "$TMP/rec" 80 24 "$TMP/gone"
rmdir "$TMP/gone"
$T send-keys -t ui s
wait_for "^shimtop-[0-9-]+\.snap: No such file or directory; save to: ?\$"
$T send-keys -t ui -l "$TMP/chosen.snap"
$T send-keys -t ui Enter
wait_for "^snapshot $TMP/chosen\.snap \([0-9.]+ [kM]B in [0-9.]+ s\)"
"$SHIMTOP" -i "$TMP/chosen.snap" -b --format json >"$TMP/chosen.json" 2>"$TMP/err" ||
	fail "the snapshot written to the path typed does not read back: $(cat "$TMP/err")"
$T send-keys -t ui s
wait_for "; save to: ?\$"
$T send-keys -t ui Escape
wait_for "^snapshot not saved"
# Written in the background: into a FIFO whose reader leaves it unread
# for 4 s (its buffer a page), the footer says it is being written, a
# second s is refused, and keys are answered while the reader still
# sleeps; once read, where it went is said and the snapshot reads back.
mkfifo "$TMP/slow.fifo"
cat >"$TMP/slow_reader.py" <<'PY'
import fcntl, os, select, sys, time
# Open to read and write (no wait for a writer), its buffer a page, then
# read nothing for 4 s; then all, until a second passes with no more.
fd = os.open(sys.argv[1], os.O_RDWR)
fcntl.fcntl(fd, 1031, 4096)	# F_SETPIPE_SZ
time.sleep(4)
out = open(sys.argv[2], "wb")
while select.select([fd], [], [], 1.0)[0]:
	out.write(os.read(fd, 65536))
PY
python3 "$TMP/slow_reader.py" "$TMP/slow.fifo" "$TMP/slow.snap" &
reader=$!
$T send-keys -t ui s
wait_for "; save to: ?\$"
$T send-keys -t ui -l "$TMP/slow.fifo"
$T send-keys -t ui Enter
wait_for "writing snapshot $TMP/slow\.fifo"
$T send-keys -t ui s
wait_for "slow\\.fifo is being written \\([0-9]+ s\\)"
$T send-keys -t ui H
wait_for "^ +TID +PID COMMAND"
kill -0 "$reader" 2>/dev/null || fail "the threads view came only once the snapshot was read: the UI waited for it"
wait_for "^snapshot $TMP/slow\.fifo \([0-9.]+ [kM]B in [0-9.]+ s\)"
wait "$reader"
"$SHIMTOP" -i "$TMP/slow.snap" -b --format json >"$TMP/slow.json" 2>"$TMP/err" ||
	fail "the snapshot written in the background does not read back: $(cat "$TMP/err")"
[ "$(json_get "$TMP/slow.json" "d['samples']")" = "$(json_get "$TMP/chosen.json" "d['samples']")" ] ||
	fail "the background snapshot holds other samples than the one before it"
$T send-keys -t ui 1
$T send-keys -t ui 2
wait_for "^timeline  100 ms a column"
# Its detail disassembles the code the snapshot kept, each instruction
# with its samples again, jumps named (the demo's file is not read).
$T send-keys -t ui 1 / phase_compute Enter Enter
wait_for "^disassembly: [0-9]+ instructions at 0x[0-9a-f]+, ([1-9][0-9]*) of \\1 samples on them" \
	"a snapshot's detail has no disassembly with its samples"
wait_for "^ +[0-9.]+% +[0-9]+ +[0-9a-f]+: +[a-z]+" "a snapshot's instructions have no samples"
wait_for "j[a-z]+ +0x[0-9a-f]+ <phase_compute\+0x[0-9a-f]+>" "a snapshot's jumps are not named"
quit_ui
# A snapshot of version 3 (stand-ins 16 bytes apart, no code) still opens
# with its names.
"$SHIMTOP" -b -i "$TESTS_DIR/fuzz/corpus/fuzz_snapshot/chains-v3.snap" >"$TMP/v3.txt" 2>&1 ||
	fail "a version 3 snapshot: $(cat "$TMP/v3.txt")"
grep -Eq "^ +[0-9.]+% .* gen_fn_b\$" "$TMP/v3.txt" || fail "a version 3 snapshot's names: $(cat "$TMP/v3.txt")"

# The observer's snapshot in the UI: its tags view and gauges, as live.
replay_ui "$TMP/o.snap" 120 30
$T send-keys -t ui 4
wait_for "^ +TIME% +SAMPLES +phase +work items"
for p in compute pointer_chase branchy recursive; do
	wait_for "^ +[0-9.]+% +[0-9]+ +$p +[0-9.e+]+/s \("
done
$T send-keys -t ui 3
wait_for "^ +DTE accepted +[0-9.]+%"
quit_ui
finish
