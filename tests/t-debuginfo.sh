#!/bin/sh
# t-debuginfo.sh - names for stripped code from where Debian and Fedora
# keep them: a library stripped as Debian ships it (.dynsym only) gets
# its static functions' names from a debug file Debian's own debuginfod
# server sends (fetched by build ID, kept in the client's cache), or from
# its MiniDebugInfo (.gnu_debugdata, as Fedora ships); without either,
# their .eh_frame bounds.  Each row says what named it.  A batch replay
# waits for the fetch; live sampling (batch or the UI) never does (a
# server that never answers leaves it running, the status line saying
# so), and a server that sends garbage or another file's debug file
# changes no name; another build's file is said once and removed from
# the cache (a right server then names).  Downloads stop past
# DEBUGINFOD_MAXSIZE and DEBUGINFOD_MAXTIME and when shimtop ends,
# leaving no temporary file.
. "$TESTS_DIR/lib.sh"

command -v cc >/dev/null || skip "cc is not installed"
command -v debuginfod >/dev/null || skip "debuginfod (Debian package debuginfod) is not installed"
command -v tmux >/dev/null || skip "tmux is not installed"
SRC="$TESTS_DIR/fixtures/symbol-targets"
cc -O1 -o "$TMP/target" "$SRC/target.c" -ldl || fail "cannot build the target"
mkdir -p "$TMP/srv"
cc -O2 -g -shared -fPIC -o "$TMP/libstatic.so" "$SRC/static_hot.c" &&
	objcopy --only-keep-debug "$TMP/libstatic.so" "$TMP/srv/libstatic.so.debug" &&
	strip --strip-all "$TMP/libstatic.so" || fail "cannot build and split libstatic.so"
id=$(readelf -n "$TMP/libstatic.so" | awk '/Build ID/ { print $3 }')
[ -n "$id" ] || fail "libstatic.so has no build ID"

# profile LABEL ENV... [-- SHIMTOP-ARGS]: 1.5 s of shimtop (batch, JSON)
# on the target with $LIB loaded, under ENV, into $TMP/p.json.
LIB=$TMP/libstatic.so
profile() {
	label=$1
	shift
	rm -f "$TMP/target.out"
	"$TMP/target" lib "$LIB" >"$TMP/target.out" &
	tpid=$!
	BG_PIDS="$BG_PIDS $tpid"
	wait_file "$TMP/target.out" || fail "$label: the target did not start"
	envs=""
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		envs="$envs $1"
		shift
	done
	[ $# -gt 0 ] && shift
	# shellcheck disable=SC2086
	env $envs "$SHIMTOP" --batch --duration 1.5 --format json -p "$tpid" "$@" \
		>"$TMP/p.json" 2>"$TMP/err" || fail "$label: shimtop failed: $(cat "$TMP/err")"
	kill "$tpid" 2>/dev/null
}
# replay LABEL ENV...: the recording $TMP/rec replayed in batch (JSON) under ENV.
replay() {
	label=$1
	shift
	env "$@" "$SHIMTOP" -i "$TMP/rec" --batch --format json >"$TMP/p.json" 2>"$TMP/err" ||
		fail "$label: shimtop -i failed: $(cat "$TMP/err")"
}
# heavy LABEL BY: heavy_a and heavy_b are rows of their own named by BY.
heavy() {
	a=$(json_get "$TMP/p.json" "round(sum(r['self'] for r in d['rows'] if r['symbol'] == 'heavy_a' and r['named_by'] == '$2'))")
	b=$(json_get "$TMP/p.json" "round(sum(r['self'] for r in d['rows'] if r['symbol'] == 'heavy_b' and r['named_by'] == '$2'))")
	echo "$1: heavy_a $a%, heavy_b $b% named by $2"
	[ "$a" -ge 50 ] && [ "$b" -ge 12 ] ||
		fail "$1: heavy_a $a%, heavy_b $b% named by $2 (expected about 75 and 25); rows: $(json_get "$TMP/p.json" "[(r['symbol'], r['named_by'], r['self']) for r in d['rows'][:4]]")"
}
# stripped LABEL: the library's functions are .eh_frame rows, no names.
stripped() {
	# Of the library's own samples: a busy machine puts more in the kernel,
	# which took them from 90% of the target's to 86%.
	n=$(json_get "$TMP/p.json" "round(100 * sum(r['self'] for r in d['rows'] if r['module'] == 'libstatic.so' and r['named_by'] == 'eh_frame') / max(1e-9, sum(r['self'] for r in d['rows'] if r['module'] == 'libstatic.so')), 1)")
	others=$(json_get "$TMP/p.json" "[(r['symbol'], r['named_by'], r['samples']) for r in d['rows'] if r['module'] == 'libstatic.so' and r['named_by'] != 'eh_frame']")
	echo "$1: .eh_frame rows $n%, the library's other rows: $others"
	# All but the few in hot(), exported: named by its .dynsym entry.
	[ "${n%.*}" -ge 99 ] || fail "$1: .eh_frame rows hold $n% of libstatic.so, expected all"
	json_get "$TMP/p.json" "[r['symbol'] for r in d['rows'] if r['symbol'].startswith('heavy')]" |
		grep -q heavy && fail "$1: a heavy_ name came from nowhere"
}

# No server: .eh_frame bounds.  Recorded, for the replays below.
profile "no DEBUGINFOD_URLS" -- --record "$TMP/rec"
stripped "no DEBUGINFOD_URLS"

# Debian's debuginfod, serving a directory with the debug file.
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
for try in 1 2 3 4 5; do
	port=$(free_port)
	debuginfod -F "$TMP/srv" -p "$port" -d "$TMP/db.sqlite" -t 1 >"$TMP/debuginfod.log" 2>&1 &
	srv=$!
	BG_PIDS="$BG_PIDS $srv"
	# Up once it serves the file (it indexes the directory first): asked
	# without libdebuginfod, whose cache would remember a "not found".
	up=0
	i=0
	while [ $i -lt 100 ] && kill -0 "$srv" 2>/dev/null; do
		if python3 -c "import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=2)" \
			"http://127.0.0.1:$port/buildid/$id/debuginfo" 2>/dev/null; then
			up=1
			break
		fi
		sleep 0.2
		i=$((i + 1))
	done
	[ "$up" -eq 1 ] && break
	kill "$srv" 2>/dev/null
done
[ "$up" -eq 1 ] || skip "debuginfod did not start here: $(tail -3 "$TMP/debuginfod.log")"
URL=http://127.0.0.1:$port

# A batch replay waits for the fetch: the report has the debug file's names.
replay "debuginfod" DEBUGINFOD_URLS="$URL" DEBUGINFOD_CACHE_PATH="$TMP/cache"
heavy "debuginfod" debuginfod
# Fetched once: the cache serves the next run with the server gone.
kill "$srv"
wait "$srv" 2>/dev/null
replay "debuginfod's cache" DEBUGINFOD_URLS="$URL" DEBUGINFOD_CACHE_PATH="$TMP/cache"
heavy "debuginfod's cache, server stopped" debuginfod

# Servers that lie: random bytes, another library's debug file.
cc -O2 -g -shared -fPIC -DHOT_NAME=hot_other -o "$TMP/libother.so" "$SRC/hot.c" &&
	objcopy --only-keep-debug "$TMP/libother.so" "$TMP/other.debug" || fail "cannot build libother.so"
for mode in garbage serve; do
	rm -f "$TMP/port"
	python3 "$TESTS_DIR/fake_debuginfod.py" "$mode" "$TMP/port" "$TMP/other.debug" &
	BG_PIDS="$BG_PIDS $!"
	wait_file "$TMP/port" || fail "fake server ($mode) did not start"
	what="random bytes"
	[ "$mode" = serve ] && what="another library's debug file"
	replay "a server that sends $what" DEBUGINFOD_URLS="http://127.0.0.1:$(cat "$TMP/port")" \
		DEBUGINFOD_CACHE_PATH="$TMP/cache-$mode"
	stripped "a server that sends $what"
done

# serve_fake MODE [FILE]: a fake server (its port in $TMP/port), $FAKE its pid.
serve_fake() {
	rm -f "$TMP/port"
	python3 "$TESTS_DIR/fake_debuginfod.py" "$1" "$TMP/port" ${2:+"$2"} &
	FAKE=$!
	BG_PIDS="$BG_PIDS $FAKE"
	wait_file "$TMP/port" || fail "fake server ($1) did not start"
}
# no_temporary CACHE LABEL: no download left half-written in the cache.
no_temporary() {
	left=$(find "$1" -name 'debuginfo.*' -type f)
	[ -z "$left" ] || fail "$2: left $(ls -l $left)"
}

# What a server sent that is not the build's debug file is said once, and
# removed from the cache: a right server is asked next time, and names come.
serve_fake serve "$TMP/other.debug"
replay "another build's file" DEBUGINFOD_URLS="http://127.0.0.1:$(cat "$TMP/port")" \
	DEBUGINFOD_CACHE_PATH="$TMP/cache-reject"
stripped "another build's file"
[ "$(grep -c "^shimtop: warning: debuginfod: what a server sent for libstatic.so (build-id $id) is not its debug file: rejected$" "$TMP/err")" -eq 1 ] ||
	fail "the rejected file was not said once: $(cat "$TMP/err")"
[ ! -s "$TMP/cache-reject/$id/debuginfo" ] || fail "the rejected file stayed in the cache"
kill "$FAKE"
serve_fake serve "$TMP/srv/libstatic.so.debug"
replay "the right server after a wrong one" DEBUGINFOD_URLS="http://127.0.0.1:$(cat "$TMP/port")" \
	DEBUGINFOD_CACHE_PATH="$TMP/cache-reject"
heavy "the right server after a wrong one" debuginfod
kill "$FAKE"

# Answers past DEBUGINFOD_MAXSIZE (4 GiB said, or no length said) and past
# DEBUGINFOD_MAXTIME (64 KiB, then silence) stop there: a batch replay,
# which waits, ends, and nothing half-written stays in the cache.  The
# failure is said, and not remembered as a miss (an empty file in the
# cache, which kept the next run from asking for ten minutes): a right
# server is asked next, and names come.
for mode in huge endless trickle; do
	serve_fake "$mode"
	t0=$(date +%s)
	replay "a server that $mode" DEBUGINFOD_MAXSIZE=1000000 DEBUGINFOD_MAXTIME=3 \
		DEBUGINFOD_URLS="http://127.0.0.1:$(cat "$TMP/port")" DEBUGINFOD_CACHE_PATH="$TMP/cache-$mode"
	took=$(($(date +%s) - t0))
	[ "$took" -le 30 ] || fail "a server that $mode held a batch replay $took s"
	stripped "a server that $mode"
	no_temporary "$TMP/cache-$mode" "a server that $mode"
	grep -q "^shimtop: warning: debuginfod: fetching the debug file of libstatic.so (build-id $id) failed: .*; not remembered as a miss, the next run asks again$" \
		"$TMP/err" || fail "a server that $mode: the failure not said: $(cat "$TMP/err")"
	[ ! -e "$TMP/cache-$mode/$id/debuginfo" ] ||
		fail "a server that $mode: a miss is remembered: $(ls -l "$TMP/cache-$mode/$id")"
	kill "$FAKE"
	serve_fake serve "$TMP/srv/libstatic.so.debug"
	replay "the right server after one that $mode" \
		DEBUGINFOD_URLS="http://127.0.0.1:$(cat "$TMP/port")" DEBUGINFOD_CACHE_PATH="$TMP/cache-$mode"
	heavy "the right server after one that $mode" debuginfod
	kill "$FAKE"
done
# shimtop ending while a download runs stops it: its file goes too, and
# no miss is remembered (the next session asks, and names).
serve_fake trickle
profile "live batch ending in a download" DEBUGINFOD_URLS="http://127.0.0.1:$(cat "$TMP/port")" \
	DEBUGINFOD_CACHE_PATH="$TMP/cache-ended"
no_temporary "$TMP/cache-ended" "shimtop ending in a download"
kill "$FAKE"
serve_fake serve "$TMP/srv/libstatic.so.debug"
replay "the next session after one that ended in a download" \
	DEBUGINFOD_URLS="http://127.0.0.1:$(cat "$TMP/port")" DEBUGINFOD_CACHE_PATH="$TMP/cache-ended"
heavy "the next session after one that ended in a download" debuginfod
kill "$FAKE"

# Live sampling does not wait: with a server that never answers, a
# 1.5 s batch run ends on time with .eh_frame rows, and the UI's table
# stays live, its status line saying what is fetched.
rm -f "$TMP/port"
python3 "$TESTS_DIR/fake_debuginfod.py" hang "$TMP/port" &
BG_PIDS="$BG_PIDS $!"
wait_file "$TMP/port" || fail "fake server (hang) did not start"
t0=$(date +%s)
profile "live batch, a server that never answers" \
	DEBUGINFOD_URLS="http://127.0.0.1:$(cat "$TMP/port")" DEBUGINFOD_CACHE_PATH="$TMP/cache-hang"
took=$(($(date +%s) - t0))
[ "$took" -le 15 ] || fail "live batch waited for a server that never answers: $took s for 1.5 s"
stripped "live batch, a server that never answers"
"$TMP/target" lib "$TMP/libstatic.so" >"$TMP/target.out" &
tpid=$!
BG_PIDS="$BG_PIDS $tpid"
ui_session -x 140 -y 30 "env DEBUGINFOD_URLS=http://127.0.0.1:$(cat "$TMP/port") \
DEBUGINFOD_CACHE_PATH='$TMP/cache-hang' SHIMTOP_THEMES='$SHIMTOP_THEMES' \
'$SHIMTOP' -p $tpid 2>'$TMP/err'; sleep 30"
wait_for "debuginfod: fetching libstatic.so's debug file" "the status line does not say what is fetched"
wait_for "eh_frame +libstatic.so +libstatic.so\+0x" "the table is not live while the fetch hangs"
# Still answering keys: the timeline.
$T send-keys -t ui 2
wait_for "^timeline " "keys are not read while the fetch hangs"
quit_ui

# With a server that answers, the live rows take the debug file's names.
srvdir=$TMP/srv
debuginfod -F "$srvdir" -p "$port" -d "$TMP/db.sqlite" -t 1 >"$TMP/debuginfod.log" 2>&1 &
srv=$!
BG_PIDS="$BG_PIDS $srv"
i=0
until python3 -c "import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=2)" \
	"http://127.0.0.1:$port/buildid/$id/debuginfo" 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 100 ] || { fail "debuginfod did not start again on port $port"; break; }
	sleep 0.2
done
ui_session -x 140 -y 30 "env DEBUGINFOD_URLS=$URL DEBUGINFOD_CACHE_PATH='$TMP/cache-ui' \
SHIMTOP_THEMES='$SHIMTOP_THEMES' '$SHIMTOP' -p $tpid 2>'$TMP/err'; sleep 30"
wait_for "debuginfod +libstatic.so +heavy_a" "the live table never took the fetched names"
quit_ui
kill "$tpid" 2>/dev/null

# MiniDebugInfo: the symbols strip removed, kept xz-compressed in
# .gnu_debugdata (Fedora's recipe), read by libdwfl.
if command -v xz >/dev/null; then
	cc -O2 -shared -fPIC -o "$TMP/libmini.so" "$SRC/static_hot.c" || fail "cannot build libmini.so"
	nm -D --format=posix --defined-only "$TMP/libmini.so" | awk '{ print $1 }' | sort >"$TMP/dyn"
	nm --format=posix --defined-only "$TMP/libmini.so" | awk '$2 ~ /^[Tt]$/ { print $1 }' |
		sort >"$TMP/funcs"
	comm -13 "$TMP/dyn" "$TMP/funcs" >"$TMP/keep"
	objcopy --only-keep-debug "$TMP/libmini.so" "$TMP/mini" &&
		objcopy -S --remove-section .comment --keep-symbols="$TMP/keep" "$TMP/mini" &&
		strip --strip-all -R .comment "$TMP/libmini.so" && xz -f "$TMP/mini" &&
		objcopy --add-section .gnu_debugdata="$TMP/mini.xz" "$TMP/libmini.so" ||
		fail "cannot make libmini.so's MiniDebugInfo"
	LIB=$TMP/libmini.so
	profile "MiniDebugInfo"
	heavy "MiniDebugInfo" minidebug
fi
finish
