#!/bin/sh
# t-escapes.sh - names the target chooses never reach a terminal raw.  A
# function named ESC ] 0;PWNED BEL ESC [2J (it would set the reader's
# window title and clear the screen), a program whose file name holds an
# escape (its command name), and a JIT map entry with one: in the batch
# text report, JSON, every CSV and folded export, no byte below 0x20
# except newline, and the names shown with '?' for each control byte.
# The same on stderr: a perf.data's warning naming the moved program, and
# arguments echoed in errors (-i, -p, -e, --symfs, --theme, --serve-token).
. "$TESTS_DIR/lib.sh"

command -v cc >/dev/null || skip "cc is not installed"
command -v objcopy >/dev/null || skip "objcopy (binutils) is not installed"
SRC="$TESTS_DIR/fixtures/symbol-targets"
cc -O1 -o "$TMP/target" "$SRC/target.c" -ldl || fail "cannot build the target"
ESC=$(printf '\033')
BEL=$(printf '\007')
EVIL="${ESC}]0;PWNED${BEL}${ESC}[2Jhot"
EXE="$TMP/x${ESC}[2J"
objcopy --redefine-sym "hot_loop=$EVIL" "$TMP/target" "$EXE" ||
	fail "objcopy cannot rename hot_loop"

# raw_bytes FILE: how many bytes below 0x20 (newline aside) or 0x7f it holds.
raw_bytes() {
	python3 -c "import sys; b=open(sys.argv[1],'rb').read(); print(sum(1 for c in b if (c < 32 and c != 10) or c == 127))" "$1"
}
clean() {	# clean LABEL FILE
	n=$(raw_bytes "$2")
	[ "$n" -eq 0 ] || fail "$1 holds $n raw control bytes: $(grep -a PWNED "$2" | od -c | head -3)"
}

"$SHIMTOP" --batch --duration 1.5 -o "$TMP/rec" -- "$EXE" run >"$TMP/text" 2>"$TMP/err" ||
	fail "profiling the target: $(cat "$TMP/err")"
clean "the text report" "$TMP/text"
clean "stderr" "$TMP/err"
grep -qF '?]0;PWNED??[2Jhot' "$TMP/text" ||
	fail "the text report does not show the function's name made safe: $(head -12 "$TMP/text")"
grep -qF 'x?[2J' "$TMP/text" || fail "the header does not show the command made safe: $(head -2 "$TMP/text")"

"$SHIMTOP" -i "$TMP/rec" --batch --format json >"$TMP/json" 2>"$TMP/err" || fail "json: $(cat "$TMP/err")"
clean "the JSON report" "$TMP/json"
json_get "$TMP/json" "[r['symbol'] for r in d['rows']]" | grep -qF '?]0;PWNED??[2Jhot' ||
	fail "the JSON report does not name the function safely"
"$SHIMTOP" -i "$TMP/rec" --batch -H -P >"$TMP/threads" 2>"$TMP/err" || fail "-H -P: $(cat "$TMP/err")"
clean "the thread and process tables" "$TMP/threads"
for fmt in csv folded speedscope; do
	"$SHIMTOP" -i "$TMP/rec" --export $fmt -o "$TMP/out.$fmt" 2>"$TMP/err" ||
		fail "--export $fmt: $(cat "$TMP/err")"
	clean "--export $fmt" "$TMP/out.$fmt"
	grep -qF 'PWNED' "$TMP/out.$fmt" || fail "--export $fmt lost the function"
done

# A JIT map names code too.
"$TMP/target" jit >"$TMP/jit.out" &
TPID=$!
BG_PIDS="$BG_PIDS $TPID"
i=0
while [ ! -s "$TMP/jit.out" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
addr=$(head -1 "$TMP/jit.out")
LEFT_FILES="$LEFT_FILES /tmp/perf-$TPID.map"
printf '%s 100 %s[31mjitted\n' "$addr" "$ESC" >"/tmp/perf-$TPID.map"
"$SHIMTOP" --batch --duration 1 -p "$TPID" >"$TMP/jit" 2>"$TMP/err" || fail "jit: $(cat "$TMP/err")"
kill "$TPID"
clean "the JIT target's report" "$TMP/jit"
grep -qF '?[31mjitted' "$TMP/jit" || fail "the JIT name is not shown made safe: $(head -10 "$TMP/jit")"

# Warnings that name a file of the recording, and arguments echoed in
# errors: stderr holds no raw control byte either (one line each).
if command -v perf >/dev/null && { timeout 10 perf record --no-buildid-cache -e cpu-clock \
	-o "$TMP/perf.data" -- timeout 1 "$EXE" run >/dev/null 2>&1; [ -s "$TMP/perf.data" ]; }; then
	mv "$EXE" "$TMP/moved"
	HOME=$TMP "$SHIMTOP" -i "$TMP/perf.data" --batch >/dev/null 2>"$TMP/err"
	clean "the warnings of a perf.data whose program moved" "$TMP/err"
	grep -q "x?\[2J" "$TMP/err" || fail "the moved program is not named with '?': $(cat "$TMP/err")"
	mv "$TMP/moved" "$EXE"
fi
for args in "-i $TMP/in${ESC}]0;T${BEL}" "-p 12${ESC}[2J" "-e cyc${ESC}[2Jles -p 1" \
	"--symfs /x${ESC}[2J -i $TMP/rec" "--theme t${ESC}[2J" \
	"--serve 127.0.0.1:0 --serve-token $TMP/rec/t${ESC}[2J --demo"; do
	# shellcheck disable=SC2086
	"$SHIMTOP" --batch $args >/dev/null 2>"$TMP/err" </dev/null
	clean "stderr of $(printf '%s' "$args" | tr -d '\033\007')" "$TMP/err"
	[ "$(grep -c . "$TMP/err")" -eq 1 ] ||
		fail "$(printf '%s' "$args" | tr -d '\033\007'): not one line: $(od -c "$TMP/err" | head -3)"
done
finish

