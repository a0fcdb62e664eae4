#!/bin/sh
# serve_window.sh - --serve's profile windows on a live session of a
# compile's size: shimtop --serve launches a clang++ -O2 compile run again
# and again, sampled at HZ (default 10 kHz) (under --memory MEMORY if
# given: below 64 a 4 MB ring, and a tree of about 70,000 nodes whose
# later paths fold into their callers, so small profiles); after MINUTES (default 2) a client asks
# WINDOWS (default 3) profiles of 2 s one after the other while another
# asks /metrics every 20 ms.  /metrics is answered by the loop that
# drains the rings, so its longest wait is how long the loop stopped.
# Prints each profile's size and the seconds it took past its window,
# /metrics' longest and median wait, and shimtop_dropped_records_total
# before and after.  SHIMTOP_BEFORE: a build to run the same way after it.
set -eu
: "${SHIMTOP:?}"
MINUTES=${MINUTES:-2}
HZ=${HZ:-10000}
MEMORY=${MEMORY:-}
WINDOWS=${WINDOWS:-3}
command -v clang++ >/dev/null || { echo "serve_window: clang++ is not installed"; exit 0; }
dir=$(mktemp -d)
pid=""
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; pkill -f "$dir/heavy.cc" 2>/dev/null; rm -rf "$dir"' EXIT
python3 "$(dirname "$0")/heavy_cc.py" "$dir/heavy.cc"
printf 'serve-window-bench-token-0123456789\n' >"$dir/token"
chmod 600 "$dir/token"
cat >"$dir/client.py" <<'PY'
import re, statistics, sys, threading, time, urllib.request
url, token, windows = sys.argv[1], sys.argv[2], int(sys.argv[3])
def get(path):
    req = urllib.request.Request(url + path, headers={"Authorization": "Bearer " + token})
    return urllib.request.urlopen(req, timeout=120).read()
def dropped():
    return int(float(re.search(rb"^shimtop_dropped_records_total (\S+)$", get("/metrics"), re.M).group(1)))
waits, done = [], False
def scrape():
    while not done:
        t = time.monotonic()
        get("/metrics")
        waits.append(time.monotonic() - t)
        time.sleep(0.02)
d0 = dropped()
th = threading.Thread(target=scrape)
th.start()
for i in range(windows):
    t = time.monotonic()
    body = get("/debug/pprof/profile?seconds=2")
    print("profile %d: %d bytes, %.2f s past its 2 s window" % (i + 1, len(body), time.monotonic() - t - 2))
done = True
th.join()
print("/metrics: %d answers, longest %.1f ms, median %.1f ms; dropped %d before, %d after"
      % (len(waits), max(waits) * 1e3, statistics.median(waits) * 1e3, d0, dropped()))
PY
run() {	# run NAME SHIMTOP
	mkdir "$dir/$1"
	"$2" --serve 127.0.0.1:0 --serve-token "$dir/token" -c $((1000000000 / HZ)) ${MEMORY:+--memory "$MEMORY"} -- \
		sh -c "cd $dir/$1 && while :; do clang++ -std=c++17 -O2 -c $dir/heavy.cc -o heavy.o; done" \
		2>"$dir/$1.err" >/dev/null &
	pid=$!
	sleep $((MINUTES * 60))
	url=$(sed -n 's|^shimtop: serving \(http://[0-9.]*:[0-9]*\)/ .*|\1|p' "$dir/$1.err")
	echo "$1:"
	python3 "$dir/client.py" "$url" "$(cat "$dir/token")" "$WINDOWS" | sed 's/^/  /'
	kill $pid
	wait $pid 2>/dev/null || true
	pid=""
	pkill -f "$dir/heavy.cc" 2>/dev/null || true
	sleep 2
}
echo "$(uname -r), $(uptime -p), load $(cut -d' ' -f1-3 /proc/loadavg):" \
	"$MINUTES minutes at $HZ Hz of clang++ -O2 compiles${MEMORY:+, --memory $MEMORY}"
run now "$SHIMTOP"
[ -n "${SHIMTOP_BEFORE:-}" ] && run before "$SHIMTOP_BEFORE"
exit 0
