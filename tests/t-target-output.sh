#!/bin/sh
# t-target-output.sh - a launched command's output kept off the UI's
# screen: under the UI it goes to a new file in $TMPDIR, named on the
# screen, the command's input the null device (the UI reads the keys);
# --target-output FILE sends it there (batch too), '-' to the terminal;
# an empty one is not left behind; a noisy one keeps its last megabytes,
# named in the footer at 80 columns and on quitting.  Batch sends it to
# standard error (standard output is the report's).  Bad uses get one
# line and status 2.
. "$TESTS_DIR/lib.sh"

# talk N: a command that writes N lines to stdout and stderr, 20 ms apart,
# and says whether its input is a terminal.
cat >"$TMP/talk" <<'SH'
#!/bin/sh
[ -t 0 ] && echo "TALK STDIN IS A TERMINAL"
i=0
while [ $i -lt "$1" ]; do
	echo "TALK OUT $i"
	echo "TALK ERR $i" >&2
	i=$((i + 1))
	sleep 0.02
done
SH
chmod +x "$TMP/talk"

if command -v tmux >/dev/null; then
	mkdir "$TMP/tmpdir"
	ui_session -x 120 -y 24 "env TMPDIR='$TMP/tmpdir' '$SHIMTOP' -- '$TMP/talk' 100; sleep 30"
	wait_for "the command's output goes to $TMP/tmpdir/shimtop-output-" \
		"the UI does not say where the command's output goes"
	sleep 1.5
	! screen | grep -q "TALK" || fail "the command's output is on the UI's screen:
$(screen)"
	out=$(ls "$TMP"/tmpdir/shimtop-output-* 2>/dev/null | head -1)
	[ -n "$out" ] || fail "no output file in TMPDIR"
	[ "$(grep -c '^TALK OUT' "$out")" -ge 20 ] && grep -q '^TALK ERR' "$out" ||
		fail "the output file lacks the command's stdout and stderr: $(head -5 "$out")"
	! grep -q "STDIN IS A TERMINAL" "$out" || fail "the command reads the UI's terminal"
	# The note goes after a few seconds: the first screen's keys come back.
	wait_for "F1Help" "the output note hides the footer's keys for good"
	[ "$(stat -c %a "$out")" = 600 ] || fail "the output file is $(stat -c %a "$out"), not 600"
	quit_ui
	# A command that said nothing leaves no file behind.
	mkdir "$TMP/quiet"
	ui_session -x 120 -y 24 "env TMPDIR='$TMP/quiet' '$SHIMTOP' -- sleep 0.3; echo done >'$TMP/quiet.done'; sleep 30"
	wait_for "target [0-9]+ exited" "the quiet command's end was not shown"
	$T send-keys -t ui q
	i=0
	while [ ! -f "$TMP/quiet.done" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	[ -f "$TMP/quiet.done" ] || fail "q did not end the UI"
	[ -z "$(ls "$TMP/quiet")" ] || fail "an empty output file was left: $(ls "$TMP/quiet")"
	quit_ui
	# 20 MB of noise at 80x24: the file keeps 4-8 MiB of it, from a line's
	# start; its first cut is said, and quitting says where and how much.
	mkdir "$TMP/noisy"
	ui_session -x 80 -y 24 "env TMPDIR='$TMP/noisy' '$SHIMTOP' -- sh -c 'yes \"noise of the command\" | head -c 20000000; echo; echo LAST LINE; sleep 60' 2>'$TMP/noisy.err'; echo done >'$TMP/noisy.done'; sleep 30"
	wait_for "output keeps its last [0-9]+ MB \\(shimtop-output-" \
		"the first cut of the output file is not said at 80 columns"
	out=$(ls "$TMP"/noisy/shimtop-output-* 2>/dev/null | head -1)
	i=0
	while ! tail -c 20 "$out" | grep -q "LAST LINE" && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	size=$(stat -c %s "$out")
	[ "$size" -le $((8 << 20)) ] && [ "$size" -ge $(((4 << 20) - 4096)) ] ||
		fail "the output file holds $size bytes, not the last 4-8 MiB"
	[ "$(head -c 20 "$out")" = "noise of the command" ] || fail "the kept output starts mid-line: $(head -c 40 "$out")"
	tail -1 "$out" | grep -q "^LAST LINE" || fail "the kept output lacks the last line"
	$T send-keys -t ui q
	i=0
	while [ ! -f "$TMP/noisy.done" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	grep -q "the command's output is in $out: its last [0-9.]* MB of 19.1 MB written" "$TMP/noisy.err" ||
		fail "quitting did not say where the output is: $(cat "$TMP/noisy.err")"
	quit_ui
fi

# Batch: standard error's, unless --target-output.  Each run ends with its
# command (--duration only bounds it): 0.5 s cut talk 5 short beside a
# stress run.
"$SHIMTOP" -b --duration 20 -- "$TMP/talk" 5 >"$TMP/batch.out" 2>"$TMP/batch.err" ||
	fail "batch with a command failed: $(cat "$TMP/batch.err")"
grep -q "^TALK OUT 4" "$TMP/batch.err" || fail "batch did not send the command's output to stderr"
! grep -q "TALK" "$TMP/batch.out" || fail "batch mixed the command's output with the report"
"$SHIMTOP" -b --duration 20 --target-output "$TMP/cmd.out" -- "$TMP/talk" 5 \
	>"$TMP/batch.out" 2>"$TMP/batch.err" || fail "--target-output failed: $(cat "$TMP/batch.err")"
grep -q "^TALK OUT 4" "$TMP/cmd.out" && grep -q "^TALK ERR 4" "$TMP/cmd.out" ||
	fail "--target-output FILE lacks the output: $(cat "$TMP/cmd.out")"
! grep -q TALK "$TMP/batch.out" "$TMP/batch.err" || fail "--target-output FILE also wrote to the terminal"
"$SHIMTOP" -b --duration 20 --target-output - -- "$TMP/talk" 5 >"$TMP/batch.out" 2>/dev/null ||
	fail "--target-output - failed"
grep -q "^TALK OUT 4" "$TMP/batch.out" || fail "--target-output - did not leave the terminal to it"

# A planted symbolic link is not written through (shimtop runs as root).
ln -s "$TMP/victim" "$TMP/link"
expect_run 1 "cannot write the command's output to '$TMP/link': it is a symbolic link" -- \
	"$SHIMTOP" -b --duration 20 --target-output "$TMP/link" -- "$TMP/talk" 1
[ ! -e "$TMP/victim" ] || fail "--target-output wrote through a symbolic link"
expect_run 1 "cannot write the command's output to '$TMP/none/out'" -- \
	"$SHIMTOP" -b --duration 20 --target-output "$TMP/none/out" -- "$TMP/talk" 1
expect_run 2 "--target-output is where a launched command writes" -- \
	"$SHIMTOP" -b --duration 0.5 --target-output "$TMP/x" -p $$
expect_run 2 "--target-output needs a file name" -- \
	"$SHIMTOP" -b --target-output "" -- "$TMP/talk" 1
finish
