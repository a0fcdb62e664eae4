#!/bin/sh
# t-ibs.sh - IBS op samples replayed through the real model and views.
# There is no IBS here: the samples are gen_records ibs's constructed Zen 4
# registers (see its header for what they hold), and every figure checked
# below is what those registers imply:
#   gen_fn_a     400 loads, 100 DC misses from DRAM at 256 cycles
#   gen_fn_b     100 stores, 100 branches of which 25 mispredicted, T2R 40
#   gen_fn_main  100 loads, all DTLB and DC misses from L3 at 64 cycles
# and one sample whose capabilities promise a register it lacks.
. "$TESTS_DIR/lib.sh"

"$TESTS_BIN/gen_records" ibs "$TMP/ibs.rec" || fail "gen_records ibs"

# The batch report: the symbol table's IBS columns, totals, hot pages.
"$SHIMTOP" -i "$TMP/ibs.rec" --batch >"$TMP/text" 2>"$TMP/err" ||
	fail "replaying the IBS fixture failed: $(cat "$TMP/err")"
row() { grep -E " gen_records +$1\$" "$TMP/text" | tr -s ' '; }
[ "$(row gen_fn_a)" = " 57.14% 400 - 100.0 0.0 25.0 256 256 DRAM 100% 0.0 - 0 symtab gen_records gen_fn_a" ] ||
	fail "gen_fn_a's IBS row: $(row gen_fn_a)"
[ "$(row gen_fn_b)" = " 28.57% 200 - 0.0 50.0 0.0 - - - 0.0 25.0 40 symtab gen_records gen_fn_b" ] ||
	fail "gen_fn_b's IBS row: $(row gen_fn_b)"
[ "$(row gen_fn_main)" = " 14.29% 100 - 100.0 0.0 100.0 64 64 L3 100% 100.0 - 0 symtab gen_records gen_fn_main" ] ||
	fail "gen_fn_main's IBS row: $(row gen_fn_main)"
grep -q "^IBS: 700 ops, 71.4% loads, 14.3% stores, DC miss 33.3%, miss latency mean 160 p90 256 cycles, 100 DTLB misses, 25 of 100 branches mispredicted$" "$TMP/text" ||
	fail "IBS totals: $(grep '^IBS' "$TMP/text")"
grep -q "^IBS data sources: L1 300 L3 100 DRAM 100$" "$TMP/text" ||
	fail "IBS data sources: $(grep '^IBS data' "$TMP/text")"
grep -q "^IBS samples not decoded: 1, the first because: IBS op sample with 7 registers: its capabilities 0x8f5 promise 8$" "$TMP/text" ||
	fail "the bad sample is not reported: $(grep 'not decoded' "$TMP/text")"
# Most misses first; a tie goes to the page with more loads and stores.
grep -A4 "^hot data pages (3):" "$TMP/text" | tail -3 | tr -s ' ' >"$TMP/pages"
[ "$(sed -n 1p "$TMP/pages")" = " 1 0x7f0000001000 4K 400 0 100 256 gen_fn_a" ] &&
[ "$(sed -n 2p "$TMP/pages")" = " 1 0x7f0000003000 4K 100 0 100 64 gen_fn_main" ] &&
[ "$(sed -n 3p "$TMP/pages")" = " 1 0x7f0000002000 4K 0 100 0 0 gen_fn_b" ] ||
	fail "hot pages: $(cat "$TMP/pages")"

# The JSON report carries the same figures.
"$SHIMTOP" -i "$TMP/ibs.rec" --batch --format json >"$TMP/json" 2>"$TMP/err" ||
	fail "--format json failed: $(cat "$TMP/err")"
[ "$(json_get "$TMP/json" "(d['ibs']['ops'], d['ibs']['dc_misses'], d['ibs']['undecoded'], d['ibs']['data_sources']['DRAM'])")" = "(700, 200, 1, 100)" ] ||
	fail "JSON IBS totals: $(json_get "$TMP/json" "d['ibs']")"
[ "$(json_get "$TMP/json" "[(r['symbol'], r['ibs']['miss_latency_p90'], r['ibs']['mispredicts']) for r in d['rows']]")" = "[('gen_fn_a', 256.0, 0), ('gen_fn_b', None, 25), ('gen_fn_main', 64.0, 0)]" ] ||
	fail "JSON IBS rows: $(json_get "$TMP/json" "d['rows']")"
[ "$(json_get "$TMP/json" "[(p['page'], p['symbols']) for p in d['ibs']['pages']][0]")" = "(139637976731648, ['gen_fn_a'])" ] ||
	fail "JSON hot pages: $(json_get "$TMP/json" "d['ibs']['pages']")"

# A snapshot keeps what the registers added up to (its records are plain
# samples): reopened, the table, totals and pages read the same.
"$SHIMTOP" -i "$TMP/ibs.rec" --batch --snapshot-on-exit "$TMP/ibs.snap" >"$TMP/live" 2>"$TMP/err" ||
	fail "--snapshot-on-exit: $(cat "$TMP/err")"
"$SHIMTOP" -i "$TMP/ibs.snap" --batch >"$TMP/reopened" 2>"$TMP/err" ||
	fail "reopening the IBS snapshot: $(cat "$TMP/err")"
sed -n '/SELF%/,$p' "$TMP/live" >"$TMP/live.tables"
sed -n '/SELF%/,$p' "$TMP/reopened" >"$TMP/reopened.tables"
grep -q "^hot data pages (3):" "$TMP/reopened.tables" &&
	cmp -s "$TMP/live.tables" "$TMP/reopened.tables" ||
	fail "the reopened snapshot's IBS tables differ: $(diff "$TMP/live.tables" "$TMP/reopened.tables")"

# --ibs-dump: every sample decoded; the bad one said and exit 1.
"$SHIMTOP" --ibs-dump "$TMP/ibs.rec" >"$TMP/dump" 2>"$TMP/err"
[ $? -eq 1 ] || fail "--ibs-dump of a file with a bad sample did not exit 1"
grep -q "1 of 701 IBS samples could not be decoded, the first (sample 701) because: IBS op sample with 7 registers" "$TMP/err" ||
	fail "--ibs-dump's error: $(cat "$TMP/err")"
[ "$(grep -c '^sample [0-9]*: ' "$TMP/dump")" -eq 701 ] || fail "--ibs-dump printed $(grep -c '^sample' "$TMP/dump") samples"
[ "$(grep -c '^  data source: DRAM$' "$TMP/dump")" -eq 100 ] || fail "--ibs-dump: DRAM loads"
[ "$(grep -c '^  IbsDcMissLat: 64$' "$TMP/dump")" -eq 100 ] || fail "--ibs-dump: 64-cycle misses"
[ "$(grep -c '^  IbsOpBrnMisp: 1$' "$TMP/dump")" -eq 25 ] || fail "--ibs-dump: mispredicts"

# Fetch samples count where they fetched, and say their own fields are
# not summed: no op columns, no pages; --ibs-dump decodes their fields.
"$TESTS_BIN/gen_records" ibs-fetch "$TMP/fetch.rec" || fail "gen_records ibs-fetch"
"$SHIMTOP" -i "$TMP/fetch.rec" --batch >"$TMP/fetch.text" 2>"$TMP/err" ||
	fail "replaying the fetch fixture: $(cat "$TMP/err")"
[ "$(grep -E " gen_records +gen_fn_a\$" "$TMP/fetch.text" | tr -s ' ' | sed 's/^ //' | cut -d' ' -f1-2)" = "66.67% 100" ] ||
	fail "gen_fn_a's fetch row: $(grep gen_fn_a "$TMP/fetch.text")"
grep -q "^IBS: 150 fetch samples, counted where they fetched" "$TMP/fetch.text" ||
	fail "the fetch samples are not reported: $(grep '^IBS' "$TMP/fetch.text")"
! grep -Eq "LOAD%|^hot data pages" "$TMP/fetch.text" ||
	fail "op columns or pages for fetch samples: $(grep -E 'LOAD%|^hot' "$TMP/fetch.text")"
"$SHIMTOP" -i "$TMP/fetch.rec" --batch --format json >"$TMP/fetch.json" 2>"$TMP/err" ||
	fail "the fetch fixture's JSON: $(cat "$TMP/err")"
[ "$(json_get "$TMP/fetch.json" "(d['ibs']['fetches'], d['ibs']['ops'], d['samples'])")" = "(150, 0, 150)" ] ||
	fail "JSON fetches: $(json_get "$TMP/fetch.json" "d.get('ibs')")"
"$SHIMTOP" --ibs-dump "$TMP/fetch.rec" >"$TMP/fetch.dump" 2>"$TMP/err" ||
	fail "--ibs-dump of fetch samples: $(cat "$TMP/err")"
[ "$(grep -c '^  IbsIcMiss: 1$' "$TMP/fetch.dump")" -eq 38 ] &&
	[ "$(grep -c '^  IbsFetchLat: 30$' "$TMP/fetch.dump")" -eq 150 ] ||
	fail "--ibs-dump's fetch fields: $(grep -c IbsIcMiss "$TMP/fetch.dump") IC miss lines"

# The UI: the table's IBS columns, the hot pages view (M), the timeline's IBS rows.
replay_ui "$TMP/ibs.rec" 200 40
wait_for "LOAD% +STORE% +DCMISS% +LAT +P90 +SOURCE +DTLB% +MISP% +T2RET"
wait_for "100\.0 +0\.0 +25\.0 +256 +256 +DRAM 100% +0\.0 +- +0 +(symtab +)?gen_records +gen_fn_a"
$T send-keys -t ui M
wait_for "PID PAGE +SIZE +LOADS +STORES +MISSES +LAT +SYMBOLS"
wait_for "1 0x7f0000001000 +4K +400 +0 +100 +256  gen_fn_a"
wait_for "1 0x7f0000003000 +4K +100 +0 +100 +64  gen_fn_main"
$T send-keys -t ui Escape 2
# 100 ms columns: gen_fn_main's 100 misses in one step, 1000/s; the
# slowest column's mean latency 256 cycles.
wait_for "^DC misses +1000/s"
wait_for "^miss lat +256cy"
quit_ui

# IBS samples as CallerChaining's input: a --call-graph dwarf recording of
# call_paths_nofp with each sample turned into an IBS op sample of the same
# thread, RIP and stack copy.  Unwound, the IBS samples give the known
# tree, and CallerChaining the very figures the perf samples gave (kernel
# frames aside: IBS samples carry no kernel chain, and CallerChaining
# takes only user frames).
NOFP="$TESTS_BIN/call_paths_nofp"
if [ -x "$NOFP" ]; then
	"$SHIMTOP" --batch --call-graph dwarf --record "$TMP/cp.rec" -- "$NOFP" --seconds 1.5 \
		>/dev/null 2>"$TMP/err" || fail "recording call_paths_nofp: $(cat "$TMP/err")"
	"$TESTS_BIN/gen_records" ibs-from "$TMP/cp.rec" "$TMP/cp-ibs.rec" || fail "gen_records ibs-from"
	for f in cp cp-ibs; do
		"$SHIMTOP" -i "$TMP/$f.rec" --batch --format json >"$TMP/$f.json" 2>"$TMP/err" ||
			fail "replaying $f.rec: $(cat "$TMP/err")"
	done
	"$SHIMTOP" -i "$TMP/cp-ibs.rec" --batch --format folded >"$TMP/cp-ibs.folded" 2>"$TMP/err" ||
		fail "folded IBS stacks: $(cat "$TMP/err")"
	python3 "$TESTS_DIR/check_paths.py" "$TMP/cp-ibs.folded" ||
		fail "the IBS samples' tree: $(sort -t' ' -k2 -n "$TMP/cp-ibs.folded" | tail -8)"
	python3 - "$TMP/cp.json" "$TMP/cp-ibs.json" <<'PY' || fail "CallerChaining differs between the perf and the IBS samples"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert b['ibs']['ops'] == a['samples'] == b['samples'] > 1000, (a['samples'], b['ibs'])
assert a['tree']['unwound'] == b['tree']['unwound'], (a['tree']['unwound'], b['tree']['unwound'])
ka = {k: a['callerchain'][k] for k in ('samples', 'quadruples', 'nodes', 'functions', 'agreement')}
kb = {k: b['callerchain'][k] for k in ka}
assert ka == kb, (ka, kb)
assert ka['samples'] >= 0.95 * a['samples'], ka
PY
fi
finish
