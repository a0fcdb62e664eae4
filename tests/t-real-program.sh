#!/bin/sh
# t-real-program.sh - the same agreement on a program nobody here wrote:
# Debian's perl running a busy loop, attached with -p.  Perl's hot
# functions (Perl_pp_*, Perl_runops_standard) are exported from libperl.
. "$TESTS_DIR/lib.sh"

command -v perf >/dev/null || skip "perf (Debian linux-perf) is not installed"
[ -x /usr/bin/perl ] || skip "Debian's /usr/bin/perl is not installed"
/usr/bin/perl -e 'my %h; my $s = 0;
	for my $i (1 .. 400_000_000) { $s += ($i * 7) % 13; $h{$i % 1000} .= "x" if $i % 97 == 0;
	  $h{$i % 1000} = "" if length($h{$i % 1000}) > 100 }' &
PERL_PID=$!
BG_PIDS="$BG_PIDS $PERL_PID"
sleep 0.5
perf record -q -e cpu-clock -c 250000 -p "$PERL_PID" -o "$TMP/perf.data" \
	>/dev/null 2>"$TMP/perf.err" &
PERF_PID=$!
"$SHIMTOP" --batch --duration 3 --format json -p "$PERL_PID" >"$TMP/shimtop.json" \
	2>"$TMP/err" || fail "shimtop failed: $(cat "$TMP/err")"
kill -INT "$PERF_PID"
wait "$PERF_PID"
[ -s "$TMP/perf.data" ] || skip "perf record failed here: $(cat "$TMP/perf.err")"
perf report -i "$TMP/perf.data" --stdio -q --no-children --sort symbol \
	--percent-limit 0 >"$TMP/perf.txt" 2>/dev/null
grep -q "Perl_" "$TMP/shimtop.json" || fail "no libperl symbols resolved"
overlap=$(python3 "$TESTS_DIR/overlap.py" "$TMP/shimtop.json" "$TMP/perf.txt")
echo "overlap with perf on perl: $overlap%"
python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) >= 90 else 1)" "$overlap" ||
	fail "overlap $overlap% is under 90%"
finish
