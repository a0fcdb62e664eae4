#!/bin/sh
# dev.sh - set up and build shimtop on Debian 12, then run it or test it.
#
#   ./dev.sh run    install what building and running needs, build, run
#                   shimtop on its demo (shimtop --demo; other arguments go
#                   to shimtop instead)
#   ./dev.sh packages run|test   print either list of Debian packages
#   ./dev.sh test   install what the tests need too; make distcheck with
#                   every test in it (the release tarball unpacked
#                   read-only, built out of tree with -Werror, make -j
#                   check, installed and uninstalled), the ASan+UBSan build
#                   and the fuzz targets' (clang, libFuzzer) made beside
#                   it; then every test again under the sanitizers, and
#                   beside it every fuzz target over its corpus (and to 5 s
#                   in all), cppcheck over the sources (the kernel module has
#                   the kernel's compiler with W=1 and checkpatch instead,
#                   in t-kmod.sh).  Ends with each suite's slowest ten
#                   tests, the seconds each part took and the line "N
#                   passed, N failed, N skipped".
#   ./dev.sh fuzz [SECONDS]   every fuzz target for SECONDS (600) each, side
#                   by side; a crash's input is left as
#                   build-fuzz/fuzz-crash-NAME-*.
set -eu
cd "$(dirname "$0")"
TOP=$(pwd)

# What building and running shimtop needs, and what only its tests need
# (./dev.sh packages run|test prints each).
PACKAGES_RUN="build-essential autoconf automake pkg-config libncurses-dev
libdw-dev libelf-dev libcapstone-dev libiberty-dev libpfm4-dev libjson-c-dev libinih-dev uthash-dev
libprotobuf-c-dev protobuf-c-compiler zlib1g-dev libzstd-dev liblzma-dev libdebuginfod-dev
libmicrohttpd-dev libbpf-dev clang"
PACKAGES_TEST="debuginfod linux-perf tmux golang-go prometheus
python3 perl util-linux procps zstd cppcheck clang libclang-rt-14-dev nodejs sqlite3
linux-headers-amd64 linux-image-amd64 linux-source qemu-system-x86 busybox-static cpio kmod
groff-base man-db strace"

# install_missing PACKAGES...: apt-get installs those not installed.
install_missing() {
	missing=""
	for p in "$@"; do
		dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		echo "dev.sh: missing packages:$missing; install them as root" >&2
		exit 1
	fi
	echo "dev.sh: installing$missing"
	export DEBIAN_FRONTEND=noninteractive DEBCONF_NOWARNINGS=yes
	apt-get update -qq
	# shellcheck disable=SC2086
	# Recommends would add 68 packages (gnupg, image codecs, fonts, X11)
	# that nothing here uses.
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
}

# build DIR CONFIGURE-ARGS...: an out-of-tree build in DIR.
build() {
	dir=$1
	shift
	[ -x "$TOP/configure" ] || (cd "$TOP" && autoreconf -fi >/dev/null 2>&1)
	mkdir -p "$TOP/$dir"
	cd "$TOP/$dir"
	[ -f Makefile ] || "$TOP/configure" "$@" >/dev/null
	make -j"$(nproc)" >/dev/null
	cd "$TOP"
}

# Tests side by side, one more than the CPUs (tests wait on screens and
# sleeps part of the time); a test that times shimtop or needs the CPUs
# takes tests/lib.sh's lock (one_at_a_time) and runs alone among such
# tests.  Each suite has builds or checks beside it: the CPUs stay busy.
JOBS=${SHIMTOP_TEST_JOBS:-$(($(nproc) + 1))}
LOGS=$TOP/build-logs

# in_background NAME CMD...: CMD in the background, its output in
# $LOGS/NAME.out, then "STATUS SECONDS" in $LOGS/NAME.status.
in_background() {
	ib_name=$1
	shift
	rm -f "$LOGS/$ib_name.status"
	(
		ib_start=$(date +%s)
		ib_status=0
		# A subshell: what it runs may call in_background, which sets ib_name.
		("$@") >"$LOGS/$ib_name.out" 2>&1 || ib_status=$?
		echo "$ib_status $(($(date +%s) - ib_start))" >"$LOGS/$ib_name.status"
	) &
}

# status_of NAME, seconds_of NAME: what in_background's NAME ended with.
status_of() { cut -d' ' -f1 "$LOGS/$1.status" 2>/dev/null || echo 1; }
seconds_of() { cut -d' ' -f2 "$LOGS/$1.status" 2>/dev/null || echo 0; }

# slowest LABEL TIMES: a suite's ten slowest tests, from timed-driver's
# "WALL CPU NAME" lines, so the next slow test is seen.
slowest() {
	sort -rn "$2" 2>/dev/null | head -10 |
		awk -v label="$1" 'BEGIN { printf "slowest in %s (wall s, CPU s):", label }
			{ printf "%s %s %s %s", (NR > 1 ? "," : ""), $3, $1, $2 } END { print "" }'
}

# run_check DIR: make check there, its output in DIR/check.out and its
# tests' times in $LOGS/DIR.times.
run_check() {
	rm -f "$LOGS/$1.times"
	SHIMTOP_TEST_TIMES=$LOGS/$1.times make -C "$TOP/$1" -j"$JOBS" check >"$TOP/$1/check.out" 2>&1
}

# run_distcheck: make distcheck in build-dist, the suite run inside it
# with -Werror, as run_check would.
run_distcheck() {
	rm -f "$LOGS/build-dist.times"
	SHIMTOP_TEST_TIMES=$LOGS/build-dist.times make -C "$TOP/build-dist" -j"$JOBS" distcheck \
		DISTCHECK_CONFIGURE_FLAGS=--enable-werror >"$TOP/build-dist/check.out" 2>&1
}

# tally DIR STATUS [LOGS-DIR]: the results of the suite run in DIR (its
# tests' logs in LOGS-DIR, DIR/tests unless said), said and added to the
# totals.
passed=0 failed=0 skipped=0 slow=""
tally() {
	dir=$1 status=$2 logs=${3:-$TOP/$1/tests}
	grep -E "^(PASS|FAIL|SKIP|ERROR|XFAIL|XPASS):" "$TOP/$dir/check.out" | sed "s|^|[$dir] |"
	p=$(grep -c "^PASS:" "$TOP/$dir/check.out" || true)
	f=$(grep -Ec "^(FAIL|ERROR|XPASS):" "$TOP/$dir/check.out" || true)
	s=$(grep -c "^SKIP:" "$TOP/$dir/check.out" || true)
	if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1	# the build, or distcheck's install or clean checks, failed
		grep -E "rror|^FAIL" "$TOP/$dir/check.out" | head -20
		tail -30 "$TOP/$dir/check.out"
	fi
	for log in "$logs"/*.log; do
		case "$log" in */test-suite.log) continue ;; esac
		# automake's .trs says ":test-result: FAIL", never FAIL alone.
		if grep -Eq "^:test-result: (FAIL|ERROR|XPASS)" "${log%.log}.trs" 2>/dev/null; then
			echo "---- $log"
			tail -30 "$log"
		fi
	done
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + s))
	slow="$slow$(slowest "$dir" "$LOGS/$dir.times")
"
}

# one_result NAME STATUS [WHAT]: a check of its own (distcheck, cppcheck), said and counted.
one_result() {
	if [ "$2" -eq 0 ]; then
		passed=$((passed + 1))
		echo "PASS: $1${3:+ ($3)}"
	else
		failed=$((failed + 1))
		echo "FAIL: $1"
	fi
}

# stop_if_failed NAME...: a build that failed ends the run, with why.
stop_if_failed() {
	for sf_name in "$@"; do
		[ "$(status_of "$sf_name")" -eq 0 ] && continue
		echo "FAIL: $sf_name"
		tail -30 "$LOGS/$sf_name.out"
		exit 1
	done
}

# fuzz_build: the fuzz targets, built by clang in build-fuzz.
fuzz_build() {
	mkdir -p "$TOP/build-fuzz"
	(cd "$TOP/build-fuzz" && { [ -f Makefile ] ||
		"$TOP/configure" CC=clang --enable-fuzzing --enable-werror >/dev/null; }) &&
		make -C "$TOP/build-fuzz" -j"$(nproc)" fuzz-targets >/dev/null
}

# dist_configure: build-dist, configured, where the release tarball is made
# and checked, the plain suite run in it.
dist_configure() {
	mkdir -p "$TOP/build-dist"
	cd "$TOP/build-dist"
	[ -f Makefile ] || "$TOP/configure" --enable-werror >/dev/null
}

# run_cppcheck: cppcheck over the sources (the module has the kernel's
# compiler with W=1 and checkpatch instead, in t-kmod.sh).
run_cppcheck() {
	cppcheck --quiet --error-exitcode=1 --enable=warning,performance,portability \
		--std=c11 -D__x86_64__ '-DSEC(name)=' --inline-suppr -I src -I include -i src/kmod \
		src tests bench include
}

# long_lines: a macro that lost its line continuations reads as one long line.
long_lines() {
	awk 'length > 120 { print FILENAME ":" FNR ": " length " characters"; bad = 1 }
		END { exit bad }' $(git -C "$TOP" ls-files 'src/*.[ch]' 'tests/*.c' 'bench/*.c' \
		'include/*.h' | sed "s|^|$TOP/|")
}

case "${1:-}" in
packages)
	case "${2:-}" in
	run) echo $PACKAGES_RUN ;;
	test) echo $PACKAGES_TEST ;;
	*) echo "usage: ./dev.sh packages run|test" >&2; exit 2 ;;
	esac
	;;
fuzz)
	# shellcheck disable=SC2086
	install_missing $PACKAGES_RUN $PACKAGES_TEST
	[ -x "$TOP/configure" ] || (cd "$TOP" && autoreconf -fi >/dev/null 2>&1)
	fuzz_build
	exec make -C "$TOP/build-fuzz" -s fuzz FUZZ_SECONDS="${2:-600}"
	;;
run)
	# shellcheck disable=SC2086
	install_missing $PACKAGES_RUN
	build build
	shift
	# The demo unless told otherwise: shimtop alone is system-wide, as perf top.
	[ $# -eq 0 ] && set -- --demo
	exec "$TOP/build/shimtop" "$@"
	;;
test)
	# shellcheck disable=SC2086
	install_missing $PACKAGES_RUN $PACKAGES_TEST
	[ -x "$TOP/configure" ] || (cd "$TOP" && autoreconf -fi >/dev/null 2>&1)
	mkdir -p "$LOGS"
	began=$(date +%s)
	# The tree the release tarball is made in, configured.
	in_background build-dist dist_configure
	wait
	built=$(date +%s)
	stop_if_failed build-dist
	# The plain suite inside make distcheck: the tarball (every file the
	# build and the tests need, or a test fails) unpacked read-only,
	# built out of tree with -Werror, every test side by side, installed
	# and uninstalled.  Beside it the builds the rest needs: ASan+UBSan,
	# the fuzz targets (clang, libFuzzer).
	in_background tests run_distcheck
	in_background build-asan build build-asan --enable-werror --enable-sanitizers
	in_background build-fuzz fuzz_build
	wait
	tested=$(date +%s)
	stop_if_failed build-asan build-fuzz
	# The sanitized suite, and beside it each fuzz target over its corpus
	# and on to 5 s in all (tests/fuzz/run.sh; ./dev.sh fuzz runs them longer),
	# cppcheck, the lines' length.
	in_background sanitizers run_check build-asan
	in_background fuzzing make -C "$TOP/build-fuzz" -s fuzz-check FUZZ_JOBS=1
	in_background cppcheck run_cppcheck
	in_background line-length long_lines
	wait
	# distcheck leaves its tree only when it fails: the logs are there.
	tally build-dist "$(status_of tests)" \
		"$(find "$TOP/build-dist" -path "*/_build/sub/tests" -type d 2>/dev/null | head -1)"
	tally build-asan "$(status_of sanitizers)"
	one_result cppcheck "$(status_of cppcheck)"
	[ "$(status_of cppcheck)" -eq 0 ] || cat "$LOGS/cppcheck.out"
	one_result line-length "$(status_of line-length)"
	[ "$(status_of line-length)" -eq 0 ] || cat "$LOGS/line-length.out"
	grep -E "^(PASS|FAIL): fuzz_" "$LOGS/fuzzing.out" | sed "s|^|[build-fuzz] |"
	p=$(grep -c "^PASS: fuzz_" "$LOGS/fuzzing.out" || true)
	f=$(grep -c "^FAIL: fuzz_" "$LOGS/fuzzing.out" || true)
	if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then
		f=1	# the fuzz run failed before any target ran
		tail -30 "$LOGS/fuzzing.out"
	elif [ "$f" -ne 0 ]; then
		grep -A40 "^FAIL: fuzz_" "$LOGS/fuzzing.out"
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	printf '%s' "$slow"
	echo "phases: configure $((built - began)) s; distcheck with the suite $(seconds_of tests) s," \
		"beside it the builds: asan $(seconds_of build-asan) s, fuzz $(seconds_of build-fuzz) s" \
		"($((tested - built)) s); sanitizers $(seconds_of sanitizers) s, beside it fuzzing" \
		"$(seconds_of fuzzing) s, cppcheck $(seconds_of cppcheck) s, line-length" \
		"$(seconds_of line-length) s ($(($(date +%s) - tested)) s); in all $(($(date +%s) - began)) s" \
		"(the kernel module in QEMU is t-kmod.sh, in the tests)"
	echo "$passed passed, $failed failed, $skipped skipped"
	[ "$failed" -eq 0 ]
	;;
*)
	echo "usage: ./dev.sh run [SHIMTOP-OPTIONS] | ./dev.sh test | ./dev.sh fuzz [SECONDS] | ./dev.sh packages run|test" >&2
	exit 2
	;;
esac
