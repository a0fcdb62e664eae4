#!/bin/sh
# memory_cap.sh - what shimtop's memory costs, and that --memory holds.
#  1. bytes a sample and megabytes a minute: the demo live at 1 kHz and
#     10 kHz (cpu-clock -c 1000000 and -c 100000) for SECONDS each
#     (default 180); the growth of shimtop's resident memory from 90 s on
#     (by then the demo's functions and call paths are all seen: what
#     grows is what grows with time) over the time and the samples taken
#     meanwhile (at the session's mean rate), and the growth before; at
#     10 kHz perf top (--stdio, same event and period, same run) beside
#     it, both resident sizes at the end.
#  2. the cap: a replay of gen_records steady (300 s at 10 kHz, 3,000,000
#     samples with call chains and counters, at full speed) with --memory
#     64, 128 and the default: the peak resident size (VmHWM) and what the
#     report says of the history.
set -eu
: "${SHIMTOP:?}" "${SHIMTOP_DEMO:?}" "${GEN_RECORDS:?}"
SECONDS_LIVE=${SECONDS_LIVE:-180}
tmp=$(mktemp -d)
demo=""
trap 'kill $demo 2>/dev/null; rm -rf "$tmp"' EXIT

rss_kb() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status"; }

"$SHIMTOP_DEMO" >/dev/null 2>&1 &
demo=$!
sleep 1
for period in 1000000 100000; do
	"$SHIMTOP" -p "$demo" -b --duration "$SECONDS_LIVE" -e cpu-clock -c "$period" \
		--format json >"$tmp/live.json" 2>/dev/null &
	st=$!
	perf_pid=""
	if [ "$period" = 100000 ] && command -v perf >/dev/null; then
		perf top -p "$demo" -e cpu-clock -c "$period" --stdio -d 5 >/dev/null 2>&1 &
		perf_pid=$!
	fi
	sleep 2
	z=$(rss_kb "$st")
	sleep 88
	a=$(rss_kb "$st")
	sleep $((SECONDS_LIVE - 92))
	b=$(rss_kb "$st")
	p=$([ -n "$perf_pid" ] && rss_kb "$perf_pid" || echo 0)
	[ -n "$perf_pid" ] && kill -INT "$perf_pid" 2>/dev/null
	wait "$st"
	python3 - "$tmp/live.json" "$z" "$a" "$b" "$p" "$SECONDS_LIVE" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
z, a, b, p, secs = (int(x) for x in sys.argv[2:7])
rate = r['samples'] / r['elapsed']
grown = (b - a) * 1024
span = secs - 92
print(f"live demo at {rate:.0f} samples/s: resident {z / 1024:.1f} MB at 2 s, "
      f"{a / 1024:.1f} MB at 90 s, {b / 1024:.1f} MB at {secs - 2} s: from 90 s "
      f"{grown / (rate * span):.1f} bytes a sample, {grown / span * 60 / 1e6:.1f} MB a minute")
if p:
    print(f"perf top beside it at {secs - 2} s: {p / 1024:.1f} MB resident "
          f"(shimtop / perf top: {b / p:.2f})")
PY
done

"$GEN_RECORDS" steady "$tmp/steady.rec" 300 10000
for cap in 64 128 ""; do
	/usr/bin/time -f "%M" -o "$tmp/peak" "$SHIMTOP" -b -i "$tmp/steady.rec" \
		${cap:+--memory $cap} >"$tmp/report" 2>&1
	said=$(grep '^history:' "$tmp/report" || echo "history: nothing dropped")
	echo "--memory ${cap:-512 (default)}: peak $(($(cat "$tmp/peak") / 1024)) MB; $said"
done
