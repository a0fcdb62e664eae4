#!/bin/sh
# t-bad-input.sh - every bad input gets a one-line error naming the
# problem and what to do, and the documented exit status.
. "$TESTS_DIR/lib.sh"

expect_run 1 "no process with id 999999" -- "$SHIMTOP" --batch --duration 1 -p 999999
expect_run 2 "unknown event 'cpu-clok'.*did you mean.*cpu-clock" -- \
	"$SHIMTOP" --demo --batch --duration 1 -e cpu-clok
expect_run 1 "cannot run '/nonexistent/cmd'.*PATH" -- \
	"$SHIMTOP" --batch --duration 1 -- /nonexistent/cmd
# Without a controlling terminal (setsid) there is no /dev/tty to draw on either.
expect_run 2 "standard input is not a terminal and there is no /dev/tty; use --batch" -- \
	setsid -w "$SHIMTOP"
expect_run 2 "no theme named 'nosuch'" -- "$SHIMTOP" --theme nosuch
expect_run 2 "\-F needs a rate" -- "$SHIMTOP" --batch -F abc
expect_run 2 "'-5' is not a process or thread id" -- "$SHIMTOP" --batch -p -5
expect_run 2 "give one target" -- "$SHIMTOP" --batch -p 1 -- true
expect_run 2 "unknown format 'xml'" -- "$SHIMTOP" --batch --format xml
expect_run 1 "cannot open record file '/nonexistent/rec'" -- \
	"$SHIMTOP" --batch --replay /nonexistent/rec
echo "hello, not a recording, but long enough to hold a header.........." \
	"................................................................" >"$TMP/text"
expect_run 1 "is not a recording shimtop reads" -- "$SHIMTOP" --batch --replay "$TMP/text"
expect_run 1 "cannot create record file '/nonexistent/dir/rec'" -- \
	"$SHIMTOP" --demo --batch --duration 1 --record /nonexistent/dir/rec

# No hardware PMU: a fallback with a plain note, not a failure.
SHIMTOP_NO_PMU=1 "$SHIMTOP" --demo --batch --duration 1 >"$TMP/out" 2>"$TMP/err"
[ $? -eq 0 ] || fail "no-PMU fallback failed: $(cat "$TMP/err")"
grep -q "note: no hardware PMU: IPC unavailable, sampling cpu-clock" "$TMP/out" ||
	fail "no-PMU note missing: $(head -4 "$TMP/out")"
SHIMTOP_NO_PMU=1 "$SHIMTOP" --demo --batch --duration 1 -e cycles >"$TMP/out" 2>"$TMP/err"
[ $? -eq 0 ] || fail "-e cycles without a PMU failed: $(cat "$TMP/err")"
grep -q "needs a hardware PMU.*sampling cpu-clock instead" "$TMP/err" ||
	fail "-e cycles without a PMU: no warning: $(cat "$TMP/err")"

# The target exits mid-session: the final table is kept and printed.
"$SHIMTOP" --batch --duration 10 -- "$SHIMTOP_DEMO" --seconds 1.5 \
	>"$TMP/out" 2>"$TMP/err"
[ $? -eq 0 ] || fail "target exit: status $?"
# (The demo runs 1.5 s after its set-up, which a loaded machine or ASan
# makes slow: 6.1 s seen beside the stress runs.)
grep -Eq "target [0-9]+ exited after ([1-9]|[1-9][0-9])\.[0-9] s" "$TMP/err" ||
	fail "target exit: no status line: $(cat "$TMP/err")"
grep -q "phase_compute" "$TMP/out" || fail "target exit: table lost"
grep -q "^status: target [0-9]* exited" "$TMP/out" || fail "target exit: no status in report"

# --ibs: where IBS is missing, one line saying why and exit 1 (where it
# is there, bare metal, it samples: nothing to refuse).
if [ ! -e /sys/bus/event_source/devices/ibs_op ]; then
	if grep -q AuthenticAMD /proc/cpuinfo; then
		want="IBS is not available: this AMD CPU \(family 0x[0-9a-f]+\) does not report it in CPUID|the kernel offers no ibs_op PMU"
	else
		want="IBS is not available: it is an AMD feature and this CPU is [A-Za-z]+"
	fi
	expect_run 1 "$want" -- "$SHIMTOP" --ibs -b -- true
	expect_run 1 "$want" -- "$SHIMTOP" --ibs=fetch -b -- true
	expect_run 1 "$want" -- "$SHIMTOP" --ibs --ibs-aggregate -b -- true
	# Without --ibs the header's note says where IBS is missing, on AMD alone.
	"$SHIMTOP" --demo --batch --duration 0.5 >"$TMP/out" 2>"$TMP/err" ||
		fail "a session without IBS failed: $(cat "$TMP/err")"
	if grep -q AuthenticAMD /proc/cpuinfo; then
		grep -Eq "^note: .*no IBS \((the VM hides it|not in this CPU's CPUID|the kernel offers no ibs_op PMU)\)" "$TMP/out" ||
			fail "the note does not say IBS is missing: $(grep '^note' "$TMP/out")"
	elif grep -q "IBS" "$TMP/out"; then
		fail "the note speaks of IBS on a CPU without it: $(grep '^note' "$TMP/out")"
	fi
fi
expect_run 2 "--ibs takes op or fetch, not 'ops'" -- "$SHIMTOP" --ibs=ops -b -- true
expect_run 2 "--ibs-ldlat needs a load latency of 128 to 2048 cycles, not '64'" -- \
	"$SHIMTOP" --ibs --ibs-ldlat 64 -b -- true
expect_run 2 "--ibs-l3miss and --ibs-ldlat filter IBS samples: add --ibs" -- \
	"$SHIMTOP" --ibs-l3miss -b -- true
expect_run 2 "--ibs samples IBS alone: drop -e" -- "$SHIMTOP" --ibs -e cpu-clock -b -- true
expect_run 2 "--ibs-aggregate counts IBS op samples: add --ibs \\(or --ibs=op\\)" -- \
	"$SHIMTOP" --ibs-aggregate -b -- true
expect_run 2 "--ibs-aggregate counts IBS op samples: add --ibs \\(or --ibs=op\\)" -- \
	"$SHIMTOP" --ibs=fetch --ibs-aggregate -b -- true

# --ibs-dump: a recording without IBS samples, and a file that is none.
"$SHIMTOP" --demo -b --duration 0.5 --record "$TMP/plain.rec" >/dev/null 2>&1 ||
	fail "could not record the demo for --ibs-dump"
expect_run 1 "plain.rec holds no IBS samples: it was recorded without --ibs" -- \
	"$SHIMTOP" --ibs-dump "$TMP/plain.rec"
printf 'not a recording' >"$TMP/junk.rec"
expect_run 1 "junk.rec" -- "$SHIMTOP" --ibs-dump "$TMP/junk.rec"

# Failures that once went unsaid.  A report standard output cannot take:
# one line with the reason, exit 1 (it was 0, silently).
for fmt in text json; do
	"$SHIMTOP" -i "$TMP/plain.rec" --batch --format $fmt >/dev/full 2>"$TMP/err"
	st=$?
	[ "$st" -eq 1 ] || fail "--format $fmt into /dev/full exited $st, expected 1"
	grep -q "cannot write the report to standard output: No space left on device" "$TMP/err" ||
		fail "--format $fmt into /dev/full: $(cat "$TMP/err")"
done
"$SHIMTOP" -i "$TMP/plain.rec" --batch -d 0.001 -n 3 >/dev/full 2>"$TMP/err"
[ $? -eq 1 ] && [ "$(grep -c . "$TMP/err")" -eq 1 ] ||
	fail "periodic reports into /dev/full: $(cat "$TMP/err")"
# A theme is checked in batch too, where it would do nothing; a file of
# "name:value" lines (/etc/shadow's form) is no theme, and no line of it
# is echoed.
expect_run 2 "no theme named 'nosuch'" -- "$SHIMTOP" --theme nosuch -b -i "$TMP/plain.rec"
printf 'root:SECRETHASH:19000:0:99999:7:::\n' >"$TMP/shadow-like"
expect_run 2 "theme file '$TMP/shadow-like' line 1: an entry before any \[theme\] or \[colors\] section: not a theme file$" -- \
	"$SHIMTOP" --theme "$TMP/shadow-like" -b -i "$TMP/plain.rec"
grep -q SECRETHASH "$TMP/err" && fail "a theme file's line was echoed: $(cat "$TMP/err")"
expect_run 2 "theme file '/dev/null' has no \[theme\] or \[colors\] section" -- \
	"$SHIMTOP" --theme /dev/null -b -i "$TMP/plain.rec"
# Lists with an empty item, a flag given a value, an empty name, --serve twice.
expect_run 2 "-e 'cpu-clock,' has an empty event name: drop the extra comma" -- \
	"$SHIMTOP" -e cpu-clock, -b -- true
expect_run 2 "-e '\{cpu-clock,\}' has an empty event name" -- "$SHIMTOP" -e '{cpu-clock,}' -b -- true
expect_run 2 "-s 'overhead,,sym' has an empty key: drop the extra comma" -- \
	"$SHIMTOP" -s overhead,,sym -b -i "$TMP/plain.rec"
expect_run 2 "--batch takes no value: give it as --batch" -- "$SHIMTOP" --batch=1 -i "$TMP/plain.rec"
expect_run 2 "-o needs a file name \('-': standard output\)" -- "$SHIMTOP" -o '' -b -- true
expect_run 2 "--serve given twice \('0', then '0'\): one server listens on one address" -- \
	"$SHIMTOP" --serve 0 --serve 0 --demo
# No samples, --call-graph auto: no share of nothing (was "-nan%").
sleep 30 &
idle=$!
BG_PIDS="$BG_PIDS $idle"
"$SHIMTOP" --call-graph auto --batch --duration 0.3 -p "$idle" >"$TMP/out" 2>"$TMP/err" ||
	fail "an idle target: $(cat "$TMP/err")"
grep -qi nan "$TMP/out" "$TMP/err" && fail "an idle target's report says nan: $(grep -i nan "$TMP/out")"
kill "$idle"
# -g takes no mode, as perf's: the message says where the mode goes.
expect_run 2 "-g takes no mode \\(it is fp\\); give --call-graph bogus" -- \
	"$SHIMTOP" -g bogus -b -- true
expect_run 2 "-g takes no mode \\(it is fp\\); give --call-graph dwarf,99999999999" -- \
	"$SHIMTOP" -g dwarf,99999999999 -b -- true
expect_run 2 "the stack copy's size must be 8 to [0-9]+ bytes, not '99999999999'" -- \
	"$SHIMTOP" --call-graph dwarf,99999999999 -b -- true
# -F above the kernel's limit names the limit.
max=$(cat /proc/sys/kernel/perf_event_max_sample_rate 2>/dev/null || echo 0)
if [ "$max" -gt 0 ] && [ "$max" -lt 1000000 ]; then
	expect_run 1 "-F 1000000 is above the kernel's limit of $max Hz \\(kernel.perf_event_max_sample_rate\\)" -- \
		"$SHIMTOP" -F 1000000 -b --duration 0.2 -- true
fi
# A kernel thread has no program to sample: said, not an empty table.
kthread=$(ps -eo pid=,comm= | awk '$2 == "kthreadd" { print $1; exit }')
if [ -n "$kthread" ]; then
	expect_run 1 "process $kthread \\(kthreadd\\) is a kernel thread" -- \
		"$SHIMTOP" -p "$kthread" -b --duration 0.2
fi

finish
