#!/bin/sh
# run.sh SECONDS SRCDIR NAME: fuzz target NAME replays its whole seed
# corpus (SRCDIR/tests/fuzz/corpus/NAME) and what earlier runs found
# (fuzz-corpus/NAME), then fuzzes until SECONDS have passed; prints one
# line, PASS with its runs or FAIL with the log's end.  A crash leaves its
# input as fuzz-crash-NAME-*: add it to the seed corpus with its fix.
seconds=$1 srcdir=$2 name=$3
mkdir -p "fuzz-corpus/$name"
if "tests/fuzz/$name" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
	-print_final_stats=1 -artifact_prefix="fuzz-crash-$name-" "fuzz-corpus/$name" \
	"$srcdir/tests/fuzz/corpus/$name" >"fuzz-$name.log" 2>&1; then
	echo "PASS: $name ($(sed -n 's/^stat::number_of_executed_units: *//p' "fuzz-$name.log") runs in $seconds s)"
else
	echo "FAIL: $name"
	tail -40 "fuzz-$name.log"
	exit 1
fi
