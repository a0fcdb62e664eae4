#!/bin/sh
# t-observer-dte.sh - DTE does its job (000 §4.1).  tests/tsc_signal adds
# one to its counter at most once per D = 1000 TSC cycles and never
# catches up, so between reads t0 < t1 the counter grows by at most
# (t1 - t0) / D + 1, and a read window may see one more: the step taken
# before the window opened but not yet visible.  On VMs one further step
# appears now and then in a window a host exit stretched (guest TSC and
# store visibility across vCPUs are not exact), so the test allows
# k = 4 extra steps.  The observer samples every P >= 10000 cycles, so a
# correctly measured rate is at most 1/D + k/P per cycle: the bound,
# 1.4/D, while a window the load preempted shows hundreds /D.  With a second
# busy process on the observer's CPU, the observer is preempted inside
# some of its windows; those samples show impossible rates.  CPC rejects
# must appear, and no accepted sample may exceed the bound.  A preemption
# lands between a window's first clock and its read only a few times a
# second (the window is under 1% of the period), so the run lasts 8 s.
. "$TESTS_DIR/lib.sh"

[ "$(nproc)" -ge 2 ] || skip "needs two CPUs"
TSC_SIGNAL=${TSC_SIGNAL:-$(dirname "$SHIMTOP")/tests/tsc_signal}
[ -x "$TSC_SIGNAL" ] || skip "no $TSC_SIGNAL (x86 only)"

# The observer and the load share CPU 1; --pin-target keeps the counter
# on CPU 0.
taskset -c 1 sh -c 'while :; do :; done' &
BG_PIDS="$BG_PIDS $!"
"$SHIMTOP" --batch --format json --observer-cpu 1 --pin-target \
	--observer-period 10000 -- "$TSC_SIGNAL" 8 1000 >"$TMP/load.json" \
	2>"$TMP/err" || fail "loaded run failed: $(cat "$TMP/err")"

python3 - "$TMP/load.json" <<'PY' || fail "DTE under load: see above"
import json, sys
o = json.load(open(sys.argv[1]))['observer']
hz = o['tsc_hz']
c = o['counters'][0]
per_cycle = lambda r: r / hz
bound = 1 / 1000 + 4 / 10000
print(f"taken {o['taken']}, accepted {o['accepted']}, cpc rejects "
      f"{o['rejected_cpc']}, long-window rejects {o['rejected_window']}, "
      f"clock rejects {o['rejected_clock']}, "
      f"period min {o['period']['min']:.0f} cycles")
print(f"rate x D: accepted max {per_cycle(c['rate_samples']['max']) * 1000:.3f}, "
      f"accepted mean {per_cycle(c['rate_samples']['mean']) * 1000:.3f}, "
      f"highest rejected {per_cycle(c['rejected_max']) * 1000:.1f}, "
      f"bound {bound * 1000:.1f}")
ok = True
if o['period']['min'] < 10000:
    ok = print("a sample period is shorter than the throttle allows")
if o['rejected_cpc'] == 0:
    ok = print("no CPC rejects on a loaded CPU")
if per_cycle(c['rate_samples']['max']) > bound:
    ok = print("an accepted sample breaks the physical bound")
if per_cycle(c['rejected_max']) <= bound:
    ok = print("no rejected sample broke the bound: the load did not perturb a window")
if c['rate_samples']['n'] < 1000:
    ok = print("too few accepted samples to mean anything")
sys.exit(0 if ok else 1)
PY
finish
