#!/bin/sh
# t-export.sh - --export on a recording of the known call tree
# (call_paths): folded is --format folded, an unnamed frame [module]; pprof is read back by go tool
# pprof (Debian's golang-go), its sample count and leaf_work's share the
# report's; speedscope's stacks index its frames, root first, and their
# weights add up to the symbol table's, leaf by leaf; the CSV tables
# parse (Python's csv) with a header and the report's rows; a --range
# exports its part; the observer's tag table from a recording with tags.
# Bad input: --export without -i, an unknown format, an -o nobody can
# write (one line, exit 1, no file left), csv-tags with no observer.
. "$TESTS_DIR/lib.sh"

"$SHIMTOP" --batch --record "$TMP/rec" -- "$TESTS_BIN/call_paths" --seconds 1.5 \
	>/dev/null 2>"$TMP/err" || fail "recording call_paths: $(cat "$TMP/err")"
"$SHIMTOP" -i "$TMP/rec" --batch --format json -E 100000 >"$TMP/json" 2>"$TMP/err" ||
	fail "the report: $(cat "$TMP/err")"
"$SHIMTOP" -i "$TMP/rec" --batch --format folded >"$TMP/folded.report" 2>"$TMP/err" ||
	fail "--format folded: $(cat "$TMP/err")"

# folded: the same stacks as --format folded.
"$SHIMTOP" -i "$TMP/rec" --export folded -o "$TMP/folded" 2>"$TMP/err" ||
	fail "--export folded: $(cat "$TMP/err")"
cmp -s "$TMP/folded" "$TMP/folded.report" || fail "--export folded differs from --format folded"
# A frame no symbol names is its module in brackets, as stackcollapse-perf
# writes it (a file not here: libfoo.so.1).
"$TESTS_BIN/gen_records" path "$TMP/foo.rec" /nonexistent/libfoo.so.1 || fail "gen_records path"
[ "$("$SHIMTOP" -i "$TMP/foo.rec" --export folded 2>"$TMP/err")" = "[libfoo.so.1] 1" ] ||
	fail "an unnamed frame in folded: $("$SHIMTOP" -i "$TMP/foo.rec" --export folded 2>&1)"
# A reader gone before the export (| head): ended by SIGPIPE, as perf script is, no message.
python3 - "$SHIMTOP" "$TMP/rec" <<'PY' || fail "--export folded into a closed pipe"
import os, subprocess, sys
r, w = os.pipe()
os.close(r)
p = subprocess.run([sys.argv[1], "-i", sys.argv[2], "--export", "folded"], stdout=w,
                   stderr=subprocess.PIPE)
assert p.returncode == -13 and not p.stderr, (p.returncode, p.stderr)
PY

# speedscope: the file format's fields; every stack root first (main
# above leaf_work), its weights the symbol table's per leaf.
"$SHIMTOP" -i "$TMP/rec" --export speedscope -o "$TMP/speedscope.json" 2>"$TMP/err" ||
	fail "--export speedscope: $(cat "$TMP/err")"
"$SHIMTOP" -i "$TMP/rec" --export csv -o "$TMP/symbols.csv" 2>"$TMP/err" ||
	fail "--export csv: $(cat "$TMP/err")"
python3 - "$TMP/speedscope.json" "$TMP/symbols.csv" "$TMP/json" <<'PY' || fail "the speedscope export"
import csv, json, sys
d = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2])))
report = json.load(open(sys.argv[3]))
assert d['$schema'] == 'https://www.speedscope.app/file-format-schema.json', d['$schema']
frames = d['shared']['frames']
assert all('name' in f for f in frames)
[p] = d['profiles']
assert p['type'] == 'sampled' and p['unit'] == 'nanoseconds', (p['type'], p['unit'])
assert len(p['samples']) == len(p['weights']) > 0
assert p['endValue'] == sum(p['weights']) and p['startValue'] == 0
names = [f['name'] for f in frames]
by_leaf = {}
for stack, w in zip(p['samples'], p['weights']):
    assert stack and all(0 <= i < len(frames) for i in stack), stack
    n = [names[i] for i in stack]
    if 'leaf_work' in n:
        assert n.index('main') < n.index('leaf_work'), ('root first', n)
    by_leaf[n[-1]] = by_leaf.get(n[-1], 0) + w
weight = {}
for r in rows:
    weight[r['symbol']] = weight.get(r['symbol'], 0) + int(r['weight'])
assert sum(weight.values()) == sum(p['weights']), (sum(weight.values()), sum(p['weights']))
assert by_leaf.get('leaf_work') == weight['leaf_work'], (by_leaf.get('leaf_work'), weight['leaf_work'])
# The CSV is the report's table: its rows, samples and symbols.
assert len(rows) == len(report['rows']), (len(rows), len(report['rows']))
assert sum(int(r['samples']) for r in rows) == report['samples']
assert rows[0]['symbol'] == report['rows'][0]['symbol']
PY

# pprof: go tool pprof reads it; the samples and leaf_work's flat count
# are the report's.
"$SHIMTOP" -i "$TMP/rec" --export pprof -o "$TMP/cpu.pb.gz" 2>"$TMP/err" ||
	fail "--export pprof: $(cat "$TMP/err")"
[ "$(head -c 2 "$TMP/cpu.pb.gz" | od -An -tx1 | tr -d ' ')" = "1f8b" ] ||
	fail "the pprof export is not gzip"
if command -v go >/dev/null; then
	HOME=$TMP GOCACHE=$TMP/go-cache go tool pprof -raw "$TMP/cpu.pb.gz" >"$TMP/raw" 2>"$TMP/err" ||
		fail "go tool pprof cannot read the export: $(cat "$TMP/err")"
	python3 - "$TMP/raw" "$TMP/json" <<'PY' || fail "go tool pprof's view of the export: $(head -20 "$TMP/raw")"
import json, re, sys
text = open(sys.argv[1]).read()
report = json.load(open(sys.argv[2]))
assert 'PeriodType: cpu nanoseconds' in text, text[:300]
assert re.search(r'^samples/count cpu/nanoseconds', text, re.M), text[:300]
# Samples: "count weight: location ids" lines; locations: "id: address function".
samples = re.findall(r'^\s+(\d+)\s+(\d+): ([\d ]+)$', text.split('Locations')[0], re.M)
locs = dict(re.findall(r'^\s+(\d+): 0x0 (?:M=\d+ )?(\S+)', text, re.M))
total = sum(int(c) for c, w, ids in samples)
assert total == report['samples'], (total, report['samples'])
leaf = sum(int(c) for c, w, ids in samples if locs[ids.split()[0]] == 'leaf_work')
want = sum(r['samples'] for r in report['rows'] if r['symbol'] == 'leaf_work')
assert leaf == want > 0, (leaf, want)
PY
else
	fail "go (Debian's golang-go) is not installed: the pprof export cannot be read back"
fi

# Events sampled each on its own: their weights do not add up, so each
# event has its sample types, a count and a weight; go tool pprof's
# -sample_index picks each, its total the report's samples of that event.
"$SHIMTOP" --batch --format json -e cpu-clock,task-clock -o "$TMP/two.rec" -- \
	"$TESTS_BIN/call_paths" --seconds 0.5 >"$TMP/two.json" 2>"$TMP/err" || fail "-e cpu-clock,task-clock: $(cat "$TMP/err")"
"$SHIMTOP" -i "$TMP/two.rec" --export pprof -o "$TMP/two.pb.gz" 2>"$TMP/err" ||
	fail "--export pprof of two events: $(cat "$TMP/err")"
for i in 0 1 2 3; do
	HOME=$TMP GOCACHE=$TMP/go-cache go tool pprof -sample_index=$i -top "$TMP/two.pb.gz" \
		>"$TMP/top$i" 2>"$TMP/err" || fail "go tool pprof -sample_index=$i: $(cat "$TMP/err")"
done
python3 - "$TMP/two.json" "$TMP/top0" "$TMP/top1" "$TMP/top2" "$TMP/top3" <<'PY' ||
import json, re, sys
d = json.load(open(sys.argv[1]))
n = {e['event']: e['samples'] for e in d['source']['sampled']}
tops = [open(f).read() for f in sys.argv[2:]]
want = [('cpu-clock_samples', n['cpu-clock']), ('cpu-clock', None),
        ('task-clock_samples', n['task-clock']), ('task-clock', None)]
for top, (kind, count) in zip(tops, want):
    assert re.search(r'^Type: %s$' % re.escape(kind), top, re.M), top[:300]
    if count is not None:
        assert re.search(r'Total samples = %d\b' % count, top), (kind, count, top[:300])
    else:
        assert re.search(r'Total samples = [\d.]+m?s ', top), (kind, top[:300])
PY
	fail "pprof of two events: $(head -5 "$TMP/top0" "$TMP/top1")"

# The timeline: samples per 100 ms add up to all of them.
"$SHIMTOP" -i "$TMP/rec" --export csv-timeline >"$TMP/timeline.csv" 2>"$TMP/err" ||
	fail "--export csv-timeline: $(cat "$TMP/err")"
[ "$(head -1 "$TMP/timeline.csv")" = "seconds,samples,samples_per_s" ] || fail "timeline header"
[ "$(awk -F, 'NR > 1 { s += $2 } END { print s }' "$TMP/timeline.csv")" = \
	"$(json_get "$TMP/json" "d['samples']")" ] || fail "the timeline's samples are not all of them"

# A range exports its part.
"$SHIMTOP" -i "$TMP/rec" --range 0:0.5 --export speedscope -o "$TMP/part.json" 2>"$TMP/err" ||
	fail "--range with --export: $(cat "$TMP/err")"
python3 - "$TMP/part.json" "$TMP/speedscope.json" <<'PY' || fail "the range's export is not a part"
import json, sys
part, whole = (sum(json.load(open(f))['profiles'][0]['weights']) for f in sys.argv[1:3])
assert 0 < part < 0.6 * whole, (part, whole)
PY

# The observer's tags, from a constructed recording with three threads' tags.
"$TESTS_BIN/gen_records" observe "$TMP/observe.rec" || fail "gen_records observe"
"$SHIMTOP" -i "$TMP/observe.rec" --export csv-tags -o "$TMP/tags.csv" 2>"$TMP/err" ||
	fail "--export csv-tags: $(cat "$TMP/err")"
"$SHIMTOP" -i "$TMP/observe.rec" --batch --format json >"$TMP/observe.json" 2>"$TMP/err" ||
	fail "the observer's report: $(cat "$TMP/err")"
python3 - "$TMP/tags.csv" "$TMP/observe.json" <<'PY' || fail "the tag table: $(cat "$TMP/tags.csv")"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
tags = json.load(open(sys.argv[2]))['observer']['tags']
assert [r['tag'] for r in rows] == [t['name'] for t in tags], (rows, tags)
for r, t in zip(rows, tags):
    assert int(r['samples']) == t['samples'] and abs(float(r['time_pct']) - t['share']) < 1e-3, (r, t)
    assert abs(float(r['items_per_s']) - t['rates'][0]['rate']) <= 1e-5 * t['rates'][0]['rate'], (r, t)
PY

expect_run 2 "--export reads a recording: give -i FILE" -- \
	"$SHIMTOP" --export pprof -- "$TESTS_BIN/call_paths" --seconds 0.1
expect_run 2 "unknown export format 'svg' \(folded, speedscope, pprof" -- \
	"$SHIMTOP" -i "$TMP/rec" --export svg
expect_run 1 "cannot write $TMP/no/such/dir/x.pb.gz: No such file or directory" -- \
	"$SHIMTOP" -i "$TMP/rec" --export pprof -o "$TMP/no/such/dir/x.pb.gz"
mkdir "$TMP/ro"
chmod 555 "$TMP/ro"
if [ "$(id -u)" -ne 0 ]; then
	expect_run 1 "cannot write $TMP/ro/x.csv: Permission denied" -- \
		"$SHIMTOP" -i "$TMP/rec" --export csv -o "$TMP/ro/x.csv"
fi
expect_run 1 "the recording has no observer samples \(--observe\): no tag table to export" -- \
	"$SHIMTOP" -i "$TMP/rec" --export csv-tags -o "$TMP/tags2.csv"
[ -e "$TMP/tags2.csv" ] && fail "a failed export left $TMP/tags2.csv"
ls "$TMP"/tags2.csv.* >/dev/null 2>&1 && fail "a failed export left its temporary file"

# Stopped before the recording's end (SIGTERM into a replay at its own
# pace): no export under the name, nor a report passed off as whole; the
# line says where it stopped, exit 1.
"$TESTS_BIN/gen_records" steady "$TMP/long.rec" 60 100 >/dev/null || fail "gen_records steady"
printf 'kept\n' >"$TMP/cut.csv"
for how in "--export csv -o $TMP/cut.csv" "--format text"; do
	# shellcheck disable=SC2086
	"$SHIMTOP" -i "$TMP/long.rec" --realtime --batch $how >"$TMP/cut.out" 2>"$TMP/err" &
	pid=$!
	sleep 1
	kill -TERM "$pid"
	wait "$pid"
	st=$?
	[ "$st" -eq 1 ] || fail "$how stopped by SIGTERM exited $st, expected 1"
	grep -Eq "^shimtop: stopped by SIGTERM before the end of the recording, at [0-9.]+ s of it: (nothing exported \($TMP/cut.csv left as it was\)|the report covers that part only)$" \
		"$TMP/err" || fail "$how stopped by SIGTERM: $(cat "$TMP/err")"
done
[ "$(cat "$TMP/cut.csv")" = kept ] || fail "a stopped export replaced $TMP/cut.csv"
ls "$TMP"/cut.csv.* >/dev/null 2>&1 && fail "a stopped export left its temporary file"
grep -q "^status: stopped by SIGTERM before the end of the recording after" "$TMP/cut.out" ||
	fail "the stopped report's status: $(grep status "$TMP/cut.out")"

# The recording read to its end, the model still behind when SIGTERM
# comes (tests/stop_behind.py holds it so): what the stop leaves in the
# ring was never counted, so that too is a part, not the recording.
if [ "$(id -u)" -eq 0 ]; then
	"$TESTS_BIN/gen_records" steady "$TMP/ring.rec" 90 1000 >/dev/null ||
		fail "gen_records steady"
	python3 "$TESTS_DIR/stop_behind.py" "$SHIMTOP" -i "$TMP/ring.rec" --export csv \
		-o "$TMP/cut.csv" >"$TMP/behind.out" 2>"$TMP/err"
	grep -qx "status 1" "$TMP/behind.out" ||
		fail "an export stopped behind: $(cat "$TMP/behind.out" "$TMP/err")"
	grep -Eq "^shimtop: stopped by SIGTERM before the end of the recording, at [0-9.]+ s of it: nothing exported \($TMP/cut.csv left as it was\)$" \
		"$TMP/err" || fail "an export stopped behind: $(cat "$TMP/err")"
	[ "$(cat "$TMP/cut.csv")" = kept ] || fail "an export stopped behind replaced $TMP/cut.csv"
fi
finish
