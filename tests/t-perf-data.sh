#!/bin/sh
# t-perf-data.sh - shimtop -i reads what perf record writes: perf.data
# with frame-pointer chains, with --call-graph dwarf (unwound here), with
# a fixed period, and perf record -a's; the same samples as perf report
# counts, tests/call_paths' known tree, the header line from the file's
# features.  Damaged files: cut short (what came before is shown, exit 1,
# one line saying where), bad sizes and layouts (one line, exit 1).
. "$TESTS_DIR/lib.sh"

command -v perf >/dev/null || skip "perf is not installed"
FP="$TESTS_BIN/call_paths"
NOFP="$TESTS_BIN/call_paths_nofp"

# perf_samples FILE: how many samples perf itself reads in FILE.
perf_samples() {
	perf report -i "$1" -D --stdio 2>/dev/null | grep -c "PERF_RECORD_SAMPLE("
}

perf record -q -g -o "$TMP/fp.data" -- "$FP" --seconds 1 >/dev/null 2>"$TMP/err" ||
	skip "perf record cannot sample here: $(tail -1 "$TMP/err")"
"$SHIMTOP" -i "$TMP/fp.data" -b --format json >"$TMP/fp.json" 2>"$TMP/err" ||
	fail "-i perf.data: $(cat "$TMP/err")"
want=$(perf_samples "$TMP/fp.data")
got=$(json_get "$TMP/fp.json" "d['samples']")
[ "$got" -eq "$want" ] || fail "-i perf.data: $got samples, perf reads $want"
[ "$want" -gt 1000 ] || fail "perf recorded only $want samples"
"$SHIMTOP" -i "$TMP/fp.data" -b --format folded >"$TMP/fp.folded" 2>"$TMP/err" ||
	fail "-i perf.data folded: $(cat "$TMP/err")"
python3 "$TESTS_DIR/check_paths.py" "$TMP/fp.folded" ||
	fail "perf.data's fp chains: $(sort -t' ' -k2 -n "$TMP/fp.folded" | tail -5)"
"$SHIMTOP" -i "$TMP/fp.data" -b >"$TMP/fp.txt" 2>&1 || fail "-i perf.data text: $(cat "$TMP/fp.txt")"
grep -Eq "^note: perf.data from perf [0-9][^ ]* on .*: .*perf record -q -g -o $TMP/fp.data -- $FP --seconds 1" \
	"$TMP/fp.txt" || fail "the header line: $(sed -n 1,4p "$TMP/fp.txt")"
grep -q "leaf_work" "$TMP/fp.txt" || fail "no leaf_work row: $(sed -n 6,9p "$TMP/fp.txt")"

# Pipe mode (perf record -o - | shimtop -i -): the attributes and the
# features come as records; the same samples and tree.
perf record -q -g -o - -- "$FP" --seconds 1 2>/dev/null >"$TMP/pipe.data" ||
	fail "perf record -o - failed"
"$SHIMTOP" -i - -b --format json <"$TMP/pipe.data" >"$TMP/pipe.json" 2>"$TMP/err" ||
	fail "-i - (pipe mode): $(cat "$TMP/err")"
[ "$(json_get "$TMP/pipe.json" "d['samples']")" -eq "$(perf_samples "$TMP/pipe.data")" ] ||
	fail "pipe mode: not perf's sample count"
json_get "$TMP/pipe.json" "d['source']['note']" | grep -q "perf record -q -g -o - -- $FP" ||
	fail "pipe mode's header line: $(json_get "$TMP/pipe.json" "d['source']['note']")"
perf record -q -g -o - -- "$FP" --seconds 0.5 2>/dev/null |
	"$SHIMTOP" -i - -b --format folded >"$TMP/pipe.folded" 2>"$TMP/err" || fail "a live pipe: $(cat "$TMP/err")"
python3 "$TESTS_DIR/check_paths.py" "$TMP/pipe.folded" ||
	fail "pipe mode's tree: $(sort -t' ' -k2 -n "$TMP/pipe.folded" | tail -5)"
size=$(stat -c %s "$TMP/pipe.data")
head -c $((size / 2)) "$TMP/pipe.data" >"$TMP/pipecut.data"
"$SHIMTOP" -i - -b --format json <"$TMP/pipecut.data" >"$TMP/pipecut.json" 2>"$TMP/err"
[ $? -eq 1 ] || fail "a cut pipe did not exit 1"
grep -Eq "perf.data '-' stops at byte [0-9]+ of its data \(a record cut short\)" "$TMP/err" ||
	fail "a cut pipe's message: $(cat "$TMP/err")"
head -c 16 "$TMP/pipe.data" >"$TMP/pipehead.data"
expect_run 1 "perf.data '-': the stream ends before it says what was sampled" -- \
	sh -c "'$SHIMTOP' -i - -b <'$TMP/pipehead.data'"
printf 'not perf data at all' >"$TMP/junk"
expect_run 1 "perf.data '-': not a perf.data file \(bad header\)" -- sh -c "'$SHIMTOP' -i - -b <'$TMP/junk'"

# --call-graph dwarf: the user registers and stack copies unwound here.
perf record -q --call-graph dwarf -o "$TMP/dw.data" -- "$NOFP" --seconds 1 >/dev/null 2>&1 ||
	fail "perf record --call-graph dwarf failed"
"$SHIMTOP" -i "$TMP/dw.data" -b --format folded >"$TMP/dw.folded" 2>"$TMP/err" ||
	fail "-i a dwarf perf.data: $(cat "$TMP/err")"
python3 "$TESTS_DIR/check_paths.py" "$TMP/dw.folded" ||
	fail "perf.data's dwarf stacks: $(sort -t' ' -k2 -n "$TMP/dw.folded" | tail -5)"

# -e a,b: each event its own column, its samples told apart by their ids,
# in a file and in a pipe; each event's count as perf script counts it.
perf record -q -e cpu-clock,task-clock -o "$TMP/two.data" -- "$FP" --seconds 0.5 >/dev/null 2>&1 ||
	fail "perf record -e cpu-clock,task-clock failed"
perf script -i "$TMP/two.data" -F event 2>/dev/null | sort | uniq -c >"$TMP/two.counts"
"$SHIMTOP" -i "$TMP/two.data" -b --format json >"$TMP/two.json" 2>"$TMP/err" ||
	fail "-i a two-event perf.data: $(cat "$TMP/err")"
perf record -q -e cpu-clock,task-clock -o - -- "$FP" --seconds 0.5 2>/dev/null |
	"$SHIMTOP" -i - -b --format json >"$TMP/twopipe.json" 2>"$TMP/err" ||
	fail "-i - with two events: $(cat "$TMP/err")"
python3 - "$TMP/two.json" "$TMP/two.counts" "$TMP/twopipe.json" <<'PY' || fail "-e a,b: see above"
import json, sys
d = json.load(open(sys.argv[1]))
perf = {l.split()[1].rstrip(':'): int(l.split()[0]) for l in open(sys.argv[2]) if l.strip()}
got = {e['event']: e['samples'] for e in d['source']['sampled']}
if got != perf:
    sys.exit(f"per-event samples {got}, perf script counts {perf}")
leaf = [r for r in d['rows'] if r['symbol'] == 'leaf_work']
if not leaf or set(leaf[0]['events']) != {'cpu-clock', 'task-clock'} or min(leaf[0]['events'].values()) < 90:
    sys.exit(f"leaf_work's shares by event: {leaf[:1]}")
p = json.load(open(sys.argv[3]))
if [e['event'] for e in p['source']['sampled']] != ['cpu-clock', 'task-clock'] or \
   min(e['samples'] for e in p['source']['sampled']) < 100:
    sys.exit(f"pipe mode's events: {p['source']['sampled']}")
PY

# -c: a fixed period, which the samples do not carry.
perf record -q -c 500000 -o "$TMP/c.data" -- "$FP" --seconds 0.5 >/dev/null 2>&1 ||
	fail "perf record -c failed"
"$SHIMTOP" -i "$TMP/c.data" -b --format json >"$TMP/c.json" 2>"$TMP/err" ||
	fail "-i perf.data -c: $(cat "$TMP/err")"
[ "$(json_get "$TMP/c.json" "d['source']['period']['value']")" = 500000 ] ||
	fail "-c's period: $(json_get "$TMP/c.json" "d['source']['period']")"
[ "$(json_get "$TMP/c.json" "sum(r['weight'] for r in d['rows']) == 500000 * d['samples']")" = True ] ||
	fail "-c's samples do not weigh the period"

# -a: perf's side-band event beside the sampled one; every process's rows.
if perf record -q -a -g -o "$TMP/a.data" -- "$FP" --seconds 0.5 >/dev/null 2>&1; then
	"$SHIMTOP" -i "$TMP/a.data" -b --format json >"$TMP/a.json" 2>"$TMP/err" ||
		fail "-i perf record -a's file: $(cat "$TMP/err")"
	[ "$(json_get "$TMP/a.json" "d['samples']")" -eq "$(perf_samples "$TMP/a.data")" ] ||
		fail "-a: not perf's sample count"
	json_get "$TMP/a.json" "[r['comm'] for r in d['rows'] if r['symbol'] == 'leaf_work']" |
		grep -q call_paths || fail "-a: no call_paths row for leaf_work"
fi

# Cut short: what came before, and where it stops (exit 1).
size=$(stat -c %s "$TMP/fp.data")
head -c $((size / 2)) "$TMP/fp.data" >"$TMP/cut.data"
"$SHIMTOP" -i "$TMP/cut.data" -b --format json >"$TMP/cut.json" 2>"$TMP/err"
[ $? -eq 1 ] || fail "a cut perf.data did not exit 1"
grep -Eq "perf.data '$TMP/cut.data' (stops at byte [0-9]+ of its data|is cut short)" "$TMP/err" ||
	fail "a cut perf.data's message: $(cat "$TMP/err")"
n=$(json_get "$TMP/cut.json" "d['samples']")
[ "$n" -gt $((want / 4)) ] || fail "a cut perf.data showed $n of $want samples"

# Damaged headers and layouts: one line each, exit 1, nothing read.
python3 - "$TMP/fp.data" "$TMP" <<'PY'
import struct, sys
src, tmp = sys.argv[1], sys.argv[2]
b = bytearray(open(src, 'rb').read())
def put(name, data):
    open(f"{tmp}/{name}.data", 'wb').write(data)
bad = bytearray(b); struct.pack_into('<Q', bad, 16, 7); put('attrsize', bad)      # attr_size
bad = bytearray(b); struct.pack_into('<Q', bad, 24, 1 << 60); put('attrs', bad)   # attrs.offset
bad = bytearray(b); struct.pack_into('<Q', bad, 8, 12); put('hsize', bad)          # header size
attr_size, attrs_off, attrs_len = struct.unpack_from('<QQQ', b, 16)
bad = bytearray(b); struct.pack_into('<Q', bad, 32, attrs_len + attr_size); put('two', bad)  # two events
bad = bytearray(b); st = attrs_off + 24; struct.pack_into('<Q', bad, st, 0); put('noip', bad)  # sample_type 0
PY
expect_run 1 "perf.data '$TMP/attrsize.data': the file is corrupt: its header's sizes do not fit it; record it again" -- \
	"$SHIMTOP" -i "$TMP/attrsize.data" -b
expect_run 1 "perf.data '$TMP/attrs.data': the file is corrupt: its header's sizes do not fit it" -- \
	"$SHIMTOP" -i "$TMP/attrs.data" -b
expect_run 1 "perf.data '$TMP/hsize.data': the file is corrupt" -- "$SHIMTOP" -i "$TMP/hsize.data" -b
expect_run 1 "perf.data '$TMP/two.data': " -- "$SHIMTOP" -i "$TMP/two.data" -b
expect_run 1 "perf.data '$TMP/noip.data': its samples carry no address or thread" -- \
	"$SHIMTOP" -i "$TMP/noip.data" -b
finish
