#!/bin/sh
# t-kernel-walk.sh - user stacks walked in the kernel as samples are
# taken (sampler/kernel_walk.bpf.c), by default where the kernel allows
# BPF.  With SHIMTOP_UNWIND_CHECK=1 the walker sends its chain and lets
# the sample out with its copy too; the copy is walked here and the two
# compared frame by frame: on tests/call_paths_nofp, Debian's python3 and
# sqlite3, and python3 exec'd six times in a row, at least 99.9% of the
# pairs agree (disagreements listed); python3's copies, walked here by
# the pages the kernel has, agree with libdwfl's walks of them, and a
# third run, warm, opens no rows.  Without the check, the same runs
# have the kernel walk most samples, and their trees root at main;
# SHIMTOP_KERNEL_WALK=0 walks none in the kernel, and its tree of
# call_paths_nofp has the same paths within 5 points.
. "$TESTS_DIR/lib.sh"

command -v sqlite3 >/dev/null || skip "Debian's sqlite3 is not installed"

# summary NAME [MIN_WALKED]: the kernel walker's figures of $TMP/NAME.json,
# checked.  MIN_WALKED: the share of samples the kernel walked, at least.
# A checked run is not held to one: every sample there goes out with its
# copy too, walked here twice (rows and libdwfl), and under ASan the model
# fell seconds behind six python3 runs of 0.4 s each (none was taught
# before it ended: 0 of 2,314 walked in CI).
summary() {
	python3 - "$1" "$TMP/$1.json" "$2" "${pairs:-300}" <<'PY'
import json, sys
name, t, least = sys.argv[1], json.load(open(sys.argv[2]))["tree"], float(sys.argv[3] or 0)
pairs = int(sys.argv[4])
if "kernel_walk_off" in t and not t["kernel_walk"]["walked"]:
    print(f"SKIP: {t['kernel_walk_off']}")
    sys.exit(77)
kw, samples = t["kernel_walk"], t["samples"]
walked = kw["walked"]
line = (f"{name}: the kernel walked {walked} of {samples} samples; "
        f"let out: {dict((k, v) for k, v in kw.items() if k != 'walked')}")
if "kernel_check_same" in t:
    same, differ = t["kernel_check_same"], t["kernel_check_differ"]
    line += f"; checked: {same} of {same + differ} agree with the walk of the copy"
    if same + differ < pairs or same < 0.999 * (same + differ):
        print(line)
        sys.exit(f"{name}: agreement {same} of {same + differ}")
print(line)
if walked < least * samples:
    sys.exit(f"{name}: the kernel walked {walked} of {samples}")
PY
}

# check NAME MIN_WALKED CMD...: a checked run, then a plain one.
check() {
	name=$1 least=$2
	shift 2
	SHIMTOP_UNWIND_CHECK=1 "$SHIMTOP" -b --format json -F 2000 -- "$@" >"$TMP/$name.json" \
		2>"$TMP/$name.err" || fail "$name: shimtop: $(cat "$TMP/$name.err")"
	summary "$name" ""
	case $? in
	0) ;;
	77) skip "the kernel's walker: $(grep -o 'kernel_walk_off[^,]*' "$TMP/$name.json")" ;;
	*) fail "$name: see above; disagreements: $(grep 'kernel walk check' "$TMP/$name.err")" ;;
	esac
	"$SHIMTOP" -b --format json -F 2000 -- "$@" >"$TMP/$name-plain.json" \
		2>"$TMP/$name.err" || fail "$name: shimtop: $(cat "$TMP/$name.err")"
	summary "$name-plain" "$least" || fail "$name, unchecked: see above"
}

check nofp 0.8 "$TESTS_BIN/call_paths_nofp" --seconds 2
check python3 0.5 /usr/bin/python3 "$TESTS_DIR/py_work.py" 2
# The checked run's copies, walked here by the pages the kernel was given
# (every file's, compiled or from the cache, within the run's 2 s), agree
# with libdwfl's walks of them.
python3 - "$TMP/python3.json" <<'PY' || fail "python3's copies walked by pages: see above"
import json, sys
t = json.load(open(sys.argv[1]))["tree"]
same, differ, pages = t["unwind_check_same"], t["unwind_check_differ"], t["unwind_frames_by_pages"]
print(f"python3: {pages} frames walked here by the files' pages; {same} of {same + differ} "
      f"walks agree with libdwfl")
assert pages >= 1000 and same + differ >= 300 and same >= 0.999 * (same + differ)
PY
# A third python3 run finds every file's pages in the cache: its walks
# here read them from the start, and no file's rows are opened (they
# were for three files, 1.7-7% of a short attach to a compile).
# Under ASan the runs before may end before every compile is done.
if [ "${SHIMTOP_SANITIZED:-no}" != yes ]; then
	"$SHIMTOP" -b --format json -F 2000 -- /usr/bin/python3 "$TESTS_DIR/py_work.py" 1 \
		>"$TMP/warm.json" 2>"$TMP/warm.err" || fail "warm python3: $(cat "$TMP/warm.err")"
	python3 - "$TMP/warm.json" <<'PY' || fail "a warm run opened rows: see above"
import json, sys
t = json.load(open(sys.argv[1]))["tree"]
print("warm python3: rows opened", t["unwind_rows_files"], "frames by pages", t["unwind_frames_by_pages"])
assert sum(t["unwind_rows_files"].values()) == 0 and t["kernel_walked"] > 0
PY
fi
echo "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 4000000) SELECT sum(x * x % 7) FROM c;" \
	>"$TMP/q.sql"
check sqlite3 0.5 sqlite3 -cmd ".output $TMP/q.out" :memory: ".read $TMP/q.sql"
# Processes exec'd one after another, each known to the kernel only
# after a walk here has taught it their mappings (a pid's are taken back
# at each exec and at code mapped over them).
# Under ASan the checked run's model lags past each process's 0.4 s:
# its pairs are compared, however few (plain builds: 300 at least).
[ "${SHIMTOP_SANITIZED:-no}" = yes ] && pairs=0
check execs 0.3 sh -c "for i in 1 2 3 4 5 6; do /usr/bin/python3 '$TESTS_DIR/py_work.py' 0.4; done"

# The tree of call_paths_nofp walked in the kernel against walked here alone.
"$SHIMTOP" -b --format folded -- "$TESTS_BIN/call_paths_nofp" --seconds 2 \
	>"$TMP/kernel.folded" 2>"$TMP/err" || fail "nofp, folded: $(cat "$TMP/err")"
SHIMTOP_KERNEL_WALK=0 "$SHIMTOP" -b --format json -- "$TESTS_BIN/call_paths_nofp" --seconds 1 \
	>"$TMP/user.json" 2>"$TMP/err" || fail "nofp, SHIMTOP_KERNEL_WALK=0: $(cat "$TMP/err")"
python3 -c 'import json, sys; t = json.load(open(sys.argv[1]))["tree"]; sys.exit(t["kernel_walk"]["walked"] != 0 or t["kernel_walked"] != 0)' \
	"$TMP/user.json" || fail "SHIMTOP_KERNEL_WALK=0 still walked in the kernel"
# The gauges say where chains were walked.
python3 - "$TMP/nofp-plain.json" <<'PY' || fail "the kernel-walked gauge: see above"
import json, sys
d = json.load(open(sys.argv[1]))
g = [g for g in d["gauges"] if g["name"] == "kernel-walked"]
print(g)
assert g and g[0]["value"].endswith("% in the kernel") and float(g[0]["value"].split("%")[0]) >= 80, g
PY
SHIMTOP_KERNEL_WALK=0 "$SHIMTOP" -b --format folded -- "$TESTS_BIN/call_paths_nofp" --seconds 2 \
	>"$TMP/user.folded" 2>"$TMP/err" || fail "nofp, folded, user: $(cat "$TMP/err")"
python3 - "$TMP/kernel.folded" "$TMP/user.folded" <<'PY' || fail "call_paths_nofp's tree: see above"
import collections, sys
def paths(f):
    c = collections.Counter()
    for line in open(f):
        stack, _, n = line.rstrip("\n").rpartition(" ")
        if n.isdigit():
            c[stack] += int(n)
    return c
k, u = paths(sys.argv[1]), paths(sys.argv[2])
tk, tu = sum(k.values()), sum(u.values())
main = sum(n for s, n in k.items() if ";main;" in ";" + s + ";")
overlap = sum(min(k[p] / tk, u[p] / tu) for p in set(k) | set(u)) if tk and tu else 0
print(f"call_paths_nofp, walked in the kernel: {main} of {tk} samples under main; "
      f"whole paths overlap {100 * overlap:.1f}% with the walk here alone")
if tk < 1000 or main < 0.95 * tk or overlap < 0.95:
    sys.exit(f"largest: {k.most_common(3)} against {u.most_common(3)}")
PY
# The kernel's BTF (5 MB, parsed by libbpf for the wakes' CO-RE read: a
# third of an idle session's CPU) is read with --off-cpu alone, whose
# waits show their wakers; a session without it walks the same.
if command -v strace >/dev/null && [ -r /sys/kernel/btf/vmlinux ]; then
	for how in plain off-cpu; do
		opt=""
		[ "$how" = off-cpu ] && opt=--off-cpu
		# LeakSanitizer cannot run under ptrace: the ASan build's leaks are checked elsewhere.
		# shellcheck disable=SC2086
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -qq -e trace=openat -o "$TMP/$how.strace" "$SHIMTOP" -b $opt --format json -- \
			"$TESTS_BIN/call_paths_nofp" --seconds 1 >"$TMP/btf-$how.json" 2>"$TMP/err" ||
			fail "$how under strace: $(cat "$TMP/err")"
	done
	python3 - "$TMP" <<'PY' || fail "the kernel's BTF: see above"
import json, sys
d = sys.argv[1]
for how, want in (("plain", False), ("off-cpu", True)):
    read = any("/sys/kernel/btf/vmlinux" in l for l in open(f"{d}/{how}.strace"))
    walked = json.load(open(f"{d}/btf-{how}.json"))["tree"]["kernel_walk"]["walked"]
    print(f"{how}: the kernel's BTF {'read' if read else 'not read'}, {walked} samples walked in the kernel")
    if read != want or walked < 100:
        sys.exit(f"{how}: BTF read {read}, wanted {want}; walked {walked}")
PY
else
	echo "no strace or no kernel BTF here: which sessions read the BTF is not checked"
fi
finish
