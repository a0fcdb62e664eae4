#!/bin/sh
# t-serve.sh - shimtop --serve -p PID against the clients the fleet runs:
# go tool pprof fetches a profile of the demo (the token as a URL's
# password) and finds its phases by name (of -e a,b: each event's sample
# types, the window's counts); Debian's prometheus scrapes
# /metrics with a bearer token and its query API returns
# shimtop_samples_total > 0; hostile and slow clients (serve_hostile.py)
# get 4xx and never stop sampling.  A token is always asked for but on
# /healthz: made (0600) where none is, refused when another user owns it
# or others can read it; another local user (nobody) gets 401 for every
# page with figures and cannot read the token.  Bad arguments get one
# line and a non-zero status.
. "$TESTS_DIR/lib.sh"

# serve ARGS...: shimtop --serve 127.0.0.1:0 --serve-token $TMP/token ARGS
# in the background, once it says where it listens; sets SERVE_PID and URL.
printf 'shimtop-test-token-0123456789abcdef\n' >"$TMP/token" && chmod 600 "$TMP/token"
TOKEN=shimtop-test-token-0123456789abcdef
serve() {
	"$SHIMTOP" --serve 127.0.0.1:0 --serve-token "$TMP/token" "$@" 2>"$TMP/serve.err" &
	SERVE_PID=$!
	BG_PIDS="$BG_PIDS $SERVE_PID"
	URL="" i=0
	while [ -z "$URL" ] && [ $i -lt 200 ]; do
		sleep 0.1
		URL=$(sed -n 's|^shimtop: serving \(http://[0-9.]*:[0-9]*\)/ .*|\1|p' "$TMP/serve.err")
		i=$((i + 1))
	done
	[ -n "$URL" ] || { fail "--serve never said where it listens: $(cat "$TMP/serve.err")"; finish; }
}

# stop_serving: SIGTERM, a clean exit, and no sanitizer's report.
stop_serving() {
	kill -TERM "$SERVE_PID"
	wait "$SERVE_PID" 2>/dev/null
	[ $? -eq 0 ] || fail "--serve did not end cleanly on SIGTERM: $(cat "$TMP/serve.err")"
	! grep -q "Sanitizer\|runtime error" "$TMP/serve.err" ||
		fail "--serve under a sanitizer: $(head -30 "$TMP/serve.err")"
}

# fetch PATH [HEADER]: the body to $TMP/body, the status printed; the
# token goes with it unless a header is given ("-" for none).
fetch() {
	p=$1
	shift
	[ $# -eq 0 ] && set -- "Authorization: Bearer $TOKEN"
	python3 - "$URL$p" "$TMP/body" "$@" <<'PY'
import sys, urllib.request, urllib.error
req = urllib.request.Request(sys.argv[1])
for h in sys.argv[3:]:
    if h != "-":
        k, v = h.split(": ", 1)
        req.add_header(k, v)
try:
    r = urllib.request.urlopen(req, timeout=30)
    code, body = r.status, r.read()
except urllib.error.HTTPError as e:
    code, body = e.code, e.read()
open(sys.argv[2], "wb").write(body)
print(code)
PY
}

# Bad arguments: one line each, before anything is launched.
expect_run 2 "--serve needs \[ADDRESS:\]PORT with a port from 1 to 65535" -- \
	"$SHIMTOP" --serve 127.0.0.1:99999 --demo
expect_run 2 "--serve-top needs 0 to 50" -- "$SHIMTOP" --serve 9464 --serve-top 51 --demo
expect_run 2 "--serve-token and --serve-top go with --serve" -- \
	"$SHIMTOP" -b --serve-token /dev/null --demo
expect_run 2 "--serve answers HTTP instead of printing reports" -- \
	"$SHIMTOP" --serve 9464 --format json --demo
expect_run 1 "not an address of this machine" -- "$SHIMTOP" --serve 203.0.113.300:9464 --demo
printf 'short\n' >"$TMP/short.token" && chmod 600 "$TMP/short.token"
expect_run 1 "must start with a line of 16 to 256" -- \
	"$SHIMTOP" --serve 127.0.0.1:0 --serve-token "$TMP/short.token" --demo
printf 'abcdefghijklmnopqrstuvwxyz012345\n' >"$TMP/open.token" && chmod 644 "$TMP/open.token"
expect_run 1 "can be read by others \(mode 0644\): chmod 600 it" -- \
	"$SHIMTOP" --serve 127.0.0.1:0 --serve-token "$TMP/open.token" --demo
ln -s "$TMP/short.token" "$TMP/link.token"
expect_run 1 "cannot open the token file" -- \
	"$SHIMTOP" --serve 127.0.0.1:0 --serve-token "$TMP/link.token" --demo
if [ "$(id -u)" -eq 0 ]; then
	# Another user's file: they could change the token.
	cp "$TMP/token" "$TMP/theirs.token" && chown 65534 "$TMP/theirs.token"
	expect_run 1 "the token file '$TMP/theirs.token' belongs to user [a-z]+ \(uid 65534\), who can change the token" -- \
		"$SHIMTOP" --serve 127.0.0.1:0 --serve-token "$TMP/theirs.token" --demo
fi
# No token file at all: one is made, 0600, said where; the default is shimtop's own.
XDG_CONFIG_HOME=$TMP/config "$SHIMTOP" --serve 127.0.0.1:0 --duration 0.5 --demo \
	>/dev/null 2>"$TMP/made.err" || fail "--serve with no token file: $(cat "$TMP/made.err")"
grep -Eq "^shimtop: serving http://127\.0\.0\.1:[0-9]+/ .* with the token in $TMP/config/shimtop/serve-token \(made now\)$" \
	"$TMP/made.err" || fail "a new token file was not said: $(cat "$TMP/made.err")"
[ "$(stat -c %a "$TMP/config/shimtop/serve-token")" = 600 ] &&
	grep -Eqx '[0-9a-f]{48}' "$TMP/config/shimtop/serve-token" ||
	fail "the token made is not 48 hex digits, 0600: $(ls -l "$TMP/config/shimtop")"
made=$(cat "$TMP/config/shimtop/serve-token")
XDG_CONFIG_HOME=$TMP/config "$SHIMTOP" --serve 127.0.0.1:0 --duration 0.5 --demo \
	>/dev/null 2>"$TMP/made.err" || fail "--serve with its token file: $(cat "$TMP/made.err")"
[ "$(cat "$TMP/config/shimtop/serve-token")" = "$made" ] && ! grep -q "made now" "$TMP/made.err" ||
	fail "the token file was made again: $(cat "$TMP/made.err")"

# Long enough for the rest of the test on a loaded machine (it is killed at the end).
start_demo --seconds 3600
serve -p "$DEMO_PID" --serve-top 5

# IPv6 loopback (where the machine has it): it listens and says where.
if python3 -c 'import socket; socket.socket(socket.AF_INET6).bind(("::1", 0))' 2>/dev/null; then
	"$SHIMTOP" --serve '[::1]:0' --serve-token "$TMP/token" --duration 1 --demo \
		2>"$TMP/v6.err" >/dev/null ||
		fail "--serve [::1]:0: $(cat "$TMP/v6.err")"
	grep -Eq '^shimtop: serving http://\[::1\]:[0-9]+/ ' "$TMP/v6.err" ||
		fail "--serve [::1]:0 did not say where: $(cat "$TMP/v6.err")"
fi

# An address already taken: said in a line naming it and why, exit 1.
port=${URL##*:}
expect_run 1 "--serve cannot listen on 127\.0\.0\.1:$port: Address already in use \(choose another port\)" -- \
	"$SHIMTOP" --serve "127.0.0.1:$port" --serve-token "$TMP/token" --demo

# Another local user: nothing with figures, and not the token.
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null && [ -x /usr/bin/python3 ]; then
	as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
	chmod 711 "$TMP"	# the way to the token open: its own mode keeps it
	for p in /metrics / "/debug/pprof/profile?seconds=1"; do
		got=$(as_nobody /usr/bin/python3 -c '
import sys, urllib.request, urllib.error
try:
    print(urllib.request.urlopen(sys.argv[1], timeout=10).status)
except urllib.error.HTTPError as e:
    print(e.code)' "$URL$p")
		[ "$got" = 401 ] || fail "another local user got $got from $p, expected 401"
	done
	as_nobody cat "$TMP/token" >/dev/null 2>&1 && fail "another local user can read the token"
	[ "$(as_nobody /usr/bin/python3 -c 'import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1], timeout=10).status)' "$URL/healthz")" = 200 ] ||
		fail "/healthz refused another local user"
fi

[ "$(fetch /healthz -)" = 200 ] && grep -qx ok "$TMP/body" || fail "/healthz: $(cat "$TMP/body")"
[ "$(fetch /)" = 200 ] && grep -q '/debug/pprof/profile' "$TMP/body" ||
	fail "the index page: $(cat "$TMP/body")"
[ "$(fetch /metrics)" = 200 ] || fail "/metrics: $(cat "$TMP/body")"
grep -Eq '^shimtop_samples_total [1-9][0-9]*$' "$TMP/body" || fail "no samples in /metrics"
grep -Eq "^shimtop_process_samples_total\{pid=\"$DEMO_PID\",comm=\"shimtop-demo\"\} [1-9]" \
	"$TMP/body" || fail "/metrics lacks the demo's process: $(grep process "$TMP/body")"
grep -Eq '^shimtop_symbol_samples_total\{module="shimtop-demo",symbol="phase_[a-z_]+"\} [1-9]' \
	"$TMP/body" || fail "--serve-top 5: no phase in /metrics: $(grep symbol "$TMP/body")"
[ "$(grep -c '^shimtop_symbol_samples_total{' "$TMP/body")" -le 5 ] ||
	fail "--serve-top 5 gave more than five symbol series"

# go tool pprof, as a pprof scraper fetches: the demo's phases by name.
if command -v go >/dev/null; then
	# The token as Basic credentials' password, which pprof sends from a URL.
	t0=$(date +%s.%N)
	HOME=$TMP PPROF_TMPDIR=$TMP GOCACHE=$TMP/go-cache go tool pprof -raw -seconds 2 \
		"http://pprof:$TOKEN@${URL#http://}/debug/pprof/profile" >"$TMP/raw" 2>"$TMP/err" ||
		fail "go tool pprof cannot fetch a profile: $(cat "$TMP/err")"
	t1=$(date +%s.%N)
	for f in 'phase_[a-z_]+' run_phases main; do
		grep -Eq "^ +[0-9]+: 0x0 M=[0-9]+ $f .*shimtop-demo\.c:[0-9]+" "$TMP/raw" ||
			fail "go tool pprof's profile lacks $f with its file and line: $(grep -A8 '^Locations' "$TMP/raw")"
	done
	# The window is the 2 s asked for, or what a loaded machine made it:
	# never shorter, never longer than the request took.
	python3 - "$TMP/raw" "$t0" "$t1" <<'PY' || fail "the profile's duration is not the 2 s asked for"
import re, sys
# pprof prints it cut to four characters ("%.4v": 2.009s as "2.00").
m = re.search(r'^Duration: ([0-9.]+)', open(sys.argv[1]).read(), re.M)
took = float(sys.argv[3]) - float(sys.argv[2])
d = m and float(m.group(1))
if not d or not 1.99 <= d <= took:
    print("Duration %s, the request took %.2f s" % (m and m.group(0), took))
    sys.exit(1)
PY
	demo_id=$(readelf -n "$SHIMTOP_DEMO" | sed -n 's/.*Build ID: *//p')
	grep -Eq "^[0-9]+: .* shimtop-demo $demo_id " "$TMP/raw" ||
		fail "the demo's mapping lacks its build-id $demo_id: $(sed -n '/^Mappings/,$p' "$TMP/raw")"
else
	fail "go is not installed (the test list has golang-go)"
fi

python3 "$TESTS_DIR/serve_hostile.py" "$URL" "$TOKEN" >"$TMP/hostile" 2>&1 ||
	fail "hostile clients: $(cat "$TMP/hostile")"
sed 's/^/hostile clients: /' "$TMP/hostile"
stop_serving
# The demo waits, stopped, for Prometheus at the end: its CPU goes to the tests beside.
kill -STOP "$DEMO_PID"

# Events sampled each on its own (-e a,b): the profile of a window has
# each event's sample types too, its counts the window's, not the session's.
serve -e cpu-clock,task-clock --demo
sleep 2
HOME=$TMP PPROF_TMPDIR=$TMP GOCACHE=$TMP/go-cache go tool pprof -raw -seconds 1 \
	"http://pprof:$TOKEN@${URL#http://}/debug/pprof/profile" >"$TMP/raw2" 2>"$TMP/err" ||
	fail "go tool pprof cannot fetch a profile of two events: $(cat "$TMP/err")"
[ "$(fetch /metrics)" = 200 ] || fail "/metrics of two events"
python3 - "$TMP/raw2" "$TMP/body" <<'PY' || fail "a window of two events: see above"
import re, sys
raw = open(sys.argv[1]).read().split("\n")
total = int(re.search(r"^shimtop_samples_total (\d+)$", open(sys.argv[2]).read(), re.M).group(1))
head = raw.index("Samples:") + 1
want = "cpu-clock_samples/count cpu-clock/nanoseconds[dflt] task-clock_samples/count task-clock/nanoseconds"
if raw[head].strip() != want:
    sys.exit(f"sample types: {raw[head]!r}")
sums = [0, 0, 0, 0]
for line in raw[head + 1:]:
    m = re.match(r"^ *(\d+) +(\d+) +(\d+) +(\d+):", line)
    if not m:
        break
    sums = [a + int(b) for a, b in zip(sums, m.groups())]
print(f"window: cpu-clock {sums[0]}, task-clock {sums[2]} samples; session {total}")
if not (sums[0] > 0 and sums[2] > 0 and sums[0] + sums[2] < 0.7 * total):
    sys.exit(f"window counts {sums}, the session's {total}")
PY
[ "$(fetch "/debug/pprof/offcpu?seconds=1")" = 404 ] &&
	grep -q "samples no waits: start shimtop --serve with --off-cpu" "$TMP/body" ||
	fail "/debug/pprof/offcpu without --off-cpu: $(cat "$TMP/body")"
stop_serving

# Waits apart, as Go's /debug/pprof serves blocking apart from CPU: with
# --off-cpu, /debug/pprof/offcpu holds offcpu-time alone (nap_here's
# thread asleep about half of each window) and /debug/pprof/profile the
# CPU's alone; without --off-cpu, /debug/pprof/offcpu says what to do.
if [ "$(id -u)" -eq 0 ]; then
	"$TESTS_BIN/waits" nap 30 >"$TMP/waits.out" 2>&1 &
	w=$!
	BG_PIDS="$BG_PIDS $w"
	sleep 0.5
	serve --off-cpu -p "$w"
	grep -q "/debug/pprof/offcpu?seconds=N" "$TMP/serve.err" ||
		fail "--serve --off-cpu does not name /debug/pprof/offcpu: $(cat "$TMP/serve.err")"
	for p in offcpu profile; do
		HOME=$TMP PPROF_TMPDIR=$TMP GOCACHE=$TMP/go-cache go tool pprof -raw -seconds 2 \
			"http://pprof:$TOKEN@${URL#http://}/debug/pprof/$p" >"$TMP/$p.raw" 2>"$TMP/err" ||
			fail "go tool pprof cannot fetch /debug/pprof/$p: $(cat "$TMP/err")"
	done
	python3 - "$TMP/offcpu.raw" "$TMP/profile.raw" <<'PY' || fail "waits apart: see above"
import re, sys
def read(path):
    raw = open(path).read().split("\n")
    head = raw.index("Samples:") + 1
    locs = {}
    for line in raw[raw.index("Locations") + 1:]:
        m = re.match(r"^ *(\d+): 0x[0-9a-f]+ M=\d+ (\S+)", line)
        if m:
            locs[m.group(1)] = m.group(2)
    samples = []
    for line in raw[head + 1:]:
        m = re.match(r"^ *(\d+) +(\d+): ([\d ]+)", line)
        if not m:
            break
        samples.append((int(m.group(1)), int(m.group(2)), [locs.get(i, "?") for i in m.group(3).split()]))
    return raw[head].strip(), samples
types, waits = read(sys.argv[1])
if types != "offcpu-time_samples/count offcpu-time/nanoseconds[dflt]":
    sys.exit(f"/debug/pprof/offcpu's sample types: {types!r}")
nap = sum(ns for n, ns, frames in waits if "nap_here" in frames) / 1e9
print(f"offcpu window: {nap:.3f} s under nap_here")
if not 0.5 <= nap <= 1.5:
    sys.exit(f"{nap} s under nap_here in a 2 s window of a thread asleep half the time")
types, cpu = read(sys.argv[2])
if types != "cpu-clock_samples/count cpu-clock/nanoseconds[dflt]":
    sys.exit(f"/debug/pprof/profile's sample types with --off-cpu: {types!r}")
if not any("spin_here" in frames for n, ns, frames in cpu):
    sys.exit("the CPU profile has no spin_here")
PY
	stop_serving
	kill "$w" 2>/dev/null
fi

# Thousands of requests to a recording's figures (a model that no longer
# grows): shimtop's resident memory stays within 2 MiB.  Under ASan, whose
# quarantine keeps what is freed, the leak check at exit says instead.
asan=$(ldd "$SHIMTOP" 2>/dev/null | grep -c libasan)
"$SHIMTOP" -b --duration 1 -o "$TMP/rec" -- "$SHIMTOP_DEMO" --seconds 1 >/dev/null 2>&1 ||
	fail "no recording for the memory check"
serve -i "$TMP/rec" --serve-top 50
python3 - "$URL" "$SERVE_PID" "$asan" "$TOKEN" <<'PY' || fail "requests grew shimtop's memory"
import re, sys, urllib.error, urllib.request
url, pid, asan, token = sys.argv[1], sys.argv[2], sys.argv[3] != "0", sys.argv[4]
def rss():
    return int(re.search(r"VmRSS:\s+(\d+)", open(f"/proc/{pid}/status").read()).group(1))
def get(path):
    req = urllib.request.Request(url + path, headers={"Authorization": "Bearer " + token})
    try:
        urllib.request.urlopen(req, timeout=10).read()
    except urllib.error.HTTPError as e:
        e.read()
for i in range(300):
    get("/metrics")
before = rss()
for i in range(3000):
    get(("/metrics", "/nope", "/", "/debug/pprof/profile?seconds=0")[i % 4])
grown = rss() - before
print("grown", grown, "KiB over 3000 requests")
sys.exit(grown > 2048 and not asan)
PY
stop_serving

# The observer's figures: DTE's verdicts and the CPC median, from a recording.
"$TESTS_BIN/gen_records" observe "$TMP/observe.rec" >/dev/null || fail "gen_records observe"
serve -i "$TMP/observe.rec"
sleep 1
fetch /metrics >/dev/null
for m in shimtop_observer_samples_total shimtop_observer_dte_accepted_ratio \
	shimtop_observer_cpc_median shimtop_observer_rate; do
	grep -Eq "^$m [0-9.e+-]+$" "$TMP/body" || fail "/metrics lacks $m: $(grep observer "$TMP/body")"
done
json=$("$SHIMTOP" -b -i "$TMP/observe.rec" --format json 2>/dev/null)
# The same figures as the report's.
echo "$json" | python3 -c '
import json, re, sys
o = json.load(sys.stdin)["observer"]
text = open(sys.argv[1]).read()
got = lambda m: float(re.search("^%s (.*)$" % m, text, re.M).group(1))
assert abs(got("shimtop_observer_dte_accepted_ratio") - o["accepted"] / (o["taken"] - o["first"])) < 1e-6
assert abs(got("shimtop_observer_cpc_median") - o["cpc"]["p50"]) < 1e-6
' "$TMP/body" || fail "/metrics' observer figures differ from the report's: $(grep observer "$TMP/body")"
stop_serving

# Prometheus scrapes it with a bearer token, as its own config says.
kill -CONT "$DEMO_PID"
serve -p "$DEMO_PID"
[ "$(fetch /metrics -)" = 401 ] || fail "no token: not 401"
[ "$(fetch /metrics "Authorization: Bearer wrong-token-0123456789")" = 401 ] ||
	fail "a wrong token: not 401"
[ "$(fetch /metrics "Authorization: Bearer shimtop-test-token-0123456789abcdef")" = 200 ] ||
	fail "the token: not 200: $(cat "$TMP/body")"
if command -v prometheus >/dev/null; then
	pport=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	cat >"$TMP/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: shimtop
    authorization:
      type: Bearer
      credentials_file: $TMP/token
    static_configs:
      - targets: ['${URL#http://}']
EOF
	prometheus --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/prometheus" \
		--web.listen-address="127.0.0.1:$pport" >"$TMP/prometheus.log" 2>&1 &
	BG_PIDS="$BG_PIDS $!"
	python3 - "$pport" <<'PY' || fail "Prometheus never read shimtop_samples_total > 0: $(tail -5 "$TMP/prometheus.log")"
import json, sys, time, urllib.request
base = "http://127.0.0.1:%s/api/v1/" % sys.argv[1]
def get(q):
    try:
        return json.load(urllib.request.urlopen(base + q, timeout=5))
    except OSError:
        return None
for _ in range(600):
    d = get("query?query=shimtop_samples_total")
    r = d and d["data"]["result"]
    if r and float(r[0]["value"][1]) > 0:
        t = get("targets")["data"]["activeTargets"][0]
        assert t["health"] == "up" and not t["lastError"], t
        print("shimtop_samples_total", r[0]["value"][1])
        sys.exit(0)
    time.sleep(0.1)
sys.exit(1)
PY
else
	fail "prometheus is not installed (the test list has it)"
fi
stop_serving
finish
