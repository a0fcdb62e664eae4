#!/bin/sh
# t-screens.sh - the UI's screens against expected files (tests/screens/):
# gen_records fixtures replayed at full speed into a tmux pane of a fixed
# size, the keys of each case sent, the pane compared line by line.
# SHIMTOP_SCREENS_UPDATE=DIR writes each screen there instead (to review
# and copy into tests/screens/ when a change is meant).
. "${TESTS_DIR:?run through make check}/lib.sh"
command -v tmux >/dev/null || skip "tmux is not installed"
DIR="$TESTS_DIR/screens"

# fixture KIND: its recording, made once, named as the pane (working in $TMP) reads it.
fixture() {
	[ -f "$TMP/$1.rec" ] || "$TESTS_BIN/gen_records" "$1" "$TMP/$1.rec" >/dev/null ||
		fail "gen_records $1 failed"
	echo "$1.rec"
}

# The pane with its attributes: a moved selection changes it.
styled() { $T capture-pane -e -p -t ui; }

# press KEY: sends it, waits for the screen to change (up to 2 s), then to settle.
press() {
	before=$(styled)
	case "$1" in
	text:*) $T send-keys -t ui -l "${1#text:}" ;;
	*) $T send-keys -t ui "$1" ;;
	esac
	i=0
	while [ "$(styled)" = "$before" ] && [ $i -lt 20 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ $i -lt 20 ] || echo "$name: $1 changed nothing on screen in 2 s" >&2
	screen_settled >/dev/null
}

# run_case N NAME FIXTURES COLUMNS LINES KEYS: case N in a tmux server of
# its own; exits with its failures.
run_case() {
	UI_N=$1 name=$2 fixtures=$3 cols=$4 lines=$5 keys=$6	# UI_N: the server's socket
	failures=0	# its own, not the count when it was started
	args="" until="end of recording" cwd=$TMP gone=""
	for k in $keys; do
		case "$k" in
		args:*) args="$args $(echo "${k#args:}" | tr , ' ')" ;;
		until:*) until=${k#until:} ;;
		cwd:removed) cwd="$TMP/$name.cwd" && mkdir "$cwd" && gone="cd '$cwd' && rmdir '$cwd' && " ;;
		esac
	done
	# The recordings by name where they are (the diff's title shows it).
	at=$([ "$cwd" = "$TMP" ] || echo "$TMP/")
	args="-i $at${fixtures%%+*}.rec$args"
	case "$fixtures" in *+*) args="$args --diff $at${fixtures#*+}.rec" ;; esac
	ui_session -x "$cols" -y "$lines" -c "$cwd" \
		"${gone}env LANG=C.UTF-8 TZ=UTC XDG_CONFIG_HOME='$TMP/no-settings' SHIMTOP_THEMES='$SHIMTOP_THEMES' '$SHIMTOP' $args 2>'$TMP/$name.err'; sleep 60"
	wait_for "$until" "$name: the screen never showed /$until/" || exit 1
	screen_settled >/dev/null
	keep=1000
	for k in $keys; do
		case "$k" in
		lines:*) keep=${k#lines:} ;;
		args:* | until:* | cwd:*) ;;
		*) press "$k" ;;
		esac
	done
	# press left it settled; without keys, the settled start is the screen.
	# A snapshot's default name holds the time, the test's directory is its
	# own: the screen reads them as TIME and TMP.
	printf "%s\n" "$(screen)" | head -n "$keep" |
		sed -E -e 's/shimtop-[0-9]{8}-[0-9]{6}([.-][0-9]+)?\.snap/shimtop-TIME.snap/g' \
			-e "s|$TMP/|TMP/|g" >"$TMP/$name.got"
	$T kill-server 2>/dev/null
	if [ -n "${SHIMTOP_SCREENS_UPDATE:-}" ]; then
		cp "$TMP/$name.got" "$SHIMTOP_SCREENS_UPDATE/$name"
	elif [ ! -f "$DIR/$name" ]; then
		fail "$name: no expected screen tests/screens/$name; got:
$(cat "$TMP/$name.got")"
	elif ! diff -u "$DIR/$name" "$TMP/$name.got" >"$TMP/$name.diff"; then
		fail "$name ($cols x $lines, keys: ${keys:-none}) differs from tests/screens/$name:
$(cat "$TMP/$name.diff")"
	fi
	exit "$failures"
}

set -f	# keys such as * are keys, not file names
grep -v '^#' "$DIR/cases" | awk 'NF { print $2 }' | tr '+' '\n' | sort -u >"$TMP/fixtures"
while read -r kind; do fixture "$kind" >/dev/null; done <"$TMP/fixtures"
# Two cases at a time, each waiting on its own screen: half the wall time.
n=0 running=""
while read -r name fixtures cols lines keys; do
	case "$name" in '' | '#'*) continue ;; esac
	n=$((n + 1))
	(run_case "$n" "$name" "$fixtures" "$cols" "$lines" "$keys") &
	running="$running $!"
	set -- $running
	if [ $# -ge 2 ]; then
		wait "$1" || failures=$((failures + 1))
		shift
		running="$*"
	fi
done <"$DIR/cases"
for p in $running; do wait "$p" || failures=$((failures + 1)); done
[ "$n" -ge 10 ] || fail "only $n cases read from $DIR/cases"

# Standard output redirected (shimtop -- pigz -c big > out.gz): the UI draws
# on /dev/tty, says so, and writes nothing to the file.
ui_session -x 80 -y 24 -c "$TMP" \
	"env LANG=C.UTF-8 TZ=UTC XDG_CONFIG_HOME='$TMP/no-settings' SHIMTOP_THEMES='$SHIMTOP_THEMES' '$SHIMTOP' -i chains.rec >'$TMP/stdout' 2>'$TMP/stderr'; echo \"EXIT=\$?\" >'$TMP/exit'; sleep 60"
if wait_for "end of recording" "stdout redirected: no screen"; then
	screen_settled >"$TMP/redirected.got"
	if [ -n "${SHIMTOP_SCREENS_UPDATE:-}" ]; then
		cp "$TMP/redirected.got" "$SHIMTOP_SCREENS_UPDATE/table-stdout-redirected"
	elif ! diff -u "$DIR/table-stdout-redirected" "$TMP/redirected.got" >"$TMP/redirected.diff"; then
		fail "stdout redirected: the screen differs from tests/screens/table-stdout-redirected:
$(cat "$TMP/redirected.diff")"
	fi
	$T send-keys -t ui q
	wait_exists "$TMP/exit" 10 || fail "stdout redirected: q did not quit"
	grep -qx "EXIT=0" "$TMP/exit" || fail "stdout redirected: $(cat "$TMP/exit") $(cat "$TMP/stderr")"
	[ ! -s "$TMP/stdout" ] || fail "stdout redirected: the UI wrote $(wc -c <"$TMP/stdout") bytes to it"
fi
$T kill-server 2>/dev/null
finish
