#!/bin/sh
# t-perf-agreement.sh - on the demo, shimtop's per-symbol shares agree
# with perf record + perf report over the same run: overlap >= 90%.
. "$TESTS_DIR/lib.sh"

start_demo
compare_with_perf "$DEMO_PID" "the demo"
finish
