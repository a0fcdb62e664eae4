#!/bin/sh
# dev.sh - set up and build shimtop on Debian 12, then run it or test it.
#
#   ./dev.sh run    install what building and running needs, build, run
#                   shimtop on its demo (shimtop --demo; other arguments go
#                   to shimtop instead)
#   ./dev.sh packages run|test   print either list of Debian packages
#   ./dev.sh test   install what the tests need too, build with -Werror, run every
#                   test (in parallel: make -j check), then check the
#                   release tarball (it builds out of tree and runs the
#                   tests that read the tree), then build the tests with
#                   ASan+UBSan and run them all again; cppcheck over the
#                   sources (the kernel module has the kernel's compiler
#                   with W=1 and checkpatch instead, in t-kmod.sh); every
#                   fuzz target over its corpus and 10 s more, side by
#                   side (clang, libFuzzer).  Ends with the seconds each
#                   phase took, each suite's slowest ten tests and the
#                   line "N passed, N failed, N skipped".
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
libprotobuf-c-dev protobuf-c-compiler zlib1g-dev libzstd-dev libdebuginfod-dev
libmicrohttpd-dev libbpf-dev clang"
PACKAGES_TEST="debuginfod linux-perf tmux golang-go prometheus
python3 perl util-linux procps zstd cppcheck clang libclang-rt-14-dev nodejs sqlite3
linux-headers-amd64 linux-image-amd64 linux-source qemu-system-x86 busybox-static cpio kmod
groff-base man-db"

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

# phase NAME: the phase before it ends; its seconds go into the summary.
phases="" phase_name="" phase_start=0
phase() {
	now=$(date +%s)
	[ -n "$phase_name" ] && phases="$phases $phase_name $((now - phase_start)) s,"
	phase_name=$1 phase_start=$now
	return 0
}

# Tests side by side: a test that times shimtop or needs the CPUs takes
# tests/lib.sh's lock (one_at_a_time) and runs alone among such tests.
JOBS=${SHIMTOP_TEST_JOBS:-$(($(nproc) + 1))}

# slowest DIR: the suite's ten slowest tests there, from timed-driver's
# NAME.time files ("WALL CPU" seconds), so the next slow test is seen.
slowest() {
	for t in "$TOP/$1"/tests/*.time; do
		[ -e "$t" ] && printf '%s %s\n' "$(tail -1 "$t")" "$(basename "$t" .time)"
	done | sort -rn | head -10 |
		awk -v dir="$1" 'BEGIN { printf "slowest in %s (wall s, CPU s):", dir }
			{ printf "%s %s %s %s", NR > 1 ? "," : "", $3, $1, $2 } END { print "" }'
}

# check DIR: runs make check there; adds to the totals.
passed=0 failed=0 skipped=0 slow=""
check() {
	dir=$1
	status=0
	rm -f "$TOP/$dir"/tests/*.time
	make -C "$TOP/$dir" -j"$JOBS" check >"$TOP/$dir/check.out" 2>&1 || status=$?
	grep -E "^(PASS|FAIL|SKIP|ERROR|XFAIL|XPASS):" "$TOP/$dir/check.out" | sed "s|^|[$dir] |"
	p=$(grep -c "^PASS:" "$TOP/$dir/check.out" || true)
	f=$(grep -Ec "^(FAIL|ERROR|XPASS):" "$TOP/$dir/check.out" || true)
	s=$(grep -c "^SKIP:" "$TOP/$dir/check.out" || true)
	if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1	# the build itself failed
		tail -30 "$TOP/$dir/check.out"
	fi
	for log in "$TOP/$dir"/tests/*.log; do
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
	slow="$slow$(slowest "$dir")
"
}

# fuzz_build: the fuzz targets, built by clang in build-fuzz.
fuzz_build() {
	mkdir -p "$TOP/build-fuzz"
	(cd "$TOP/build-fuzz" && { [ -f Makefile ] ||
		"$TOP/configure" CC=clang --enable-fuzzing --enable-werror >/dev/null; })
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
	phase build
	build build --enable-werror
	phase tests
	check build
	phase distcheck
	# The release tarball holds every file, builds out of tree, installs,
	# and passes the tests that read the tree (Makefile.am's TREE_TESTS).
	if make -C "$TOP/build" -j"$JOBS" distcheck-tree >"$TOP/build/distcheck.out" 2>&1; then
		passed=$((passed + 1))
		echo "PASS: distcheck ($(grep -c '^PASS:' "$TOP/build/distcheck.out") tests of the tree)"
	else
		failed=$((failed + 1))
		echo "FAIL: distcheck"
		grep -E "^(FAIL|ERROR)|rror" "$TOP/build/distcheck.out" | head -20
		# distcheck leaves its tree on failure: show why each test failed.
		find "$TOP/build" -path "*/_build/*" -name "*.trs" 2>/dev/null |
			while read -r trs; do
				grep -Eq "^:test-result: (FAIL|ERROR|XPASS)" "$trs" || continue
				echo "---- ${trs%.trs}.log"
				head -20 "${trs%.trs}.log"
			done
	fi
	phase sanitizers
	build build-asan --enable-werror --enable-sanitizers
	check build-asan
	phase cppcheck
	if cppcheck --quiet --error-exitcode=1 --enable=warning,performance,portability \
		--std=c11 -D__x86_64__ '-DSEC(name)=' --inline-suppr -I src -I include -i src/kmod \
		src tests bench include \
		2>"$TOP/build/cppcheck.out"; then
		passed=$((passed + 1))
		echo "PASS: cppcheck"
	else
		failed=$((failed + 1))
		echo "FAIL: cppcheck"
		cat "$TOP/build/cppcheck.out"
	fi
	# A macro that lost its line continuations reads as one long line.
	phase line-length
	if awk 'length > 120 { print FILENAME ":" FNR ": " length " characters"; bad = 1 }
		END { exit bad }' $(git -C "$TOP" ls-files 'src/*.[ch]' 'tests/*.c' 'bench/*.c' \
		'include/*.h' | sed "s|^|$TOP/|"); then
		passed=$((passed + 1))
		echo "PASS: line-length"
	else
		failed=$((failed + 1))
		echo "FAIL: line-length (a line past 120 characters, above)"
	fi
	# The fuzz targets over their corpora and 10 s more, side by side
	# (tests/fuzz/run.sh); ./dev.sh fuzz runs them longer.
	phase fuzzing
	fuzz_build
	make -C "$TOP/build-fuzz" -s fuzz-check >"$TOP/build-fuzz/fuzz.out" 2>&1 || true
	grep -E "^(PASS|FAIL): fuzz_" "$TOP/build-fuzz/fuzz.out" | sed "s|^|[build-fuzz] |"
	p=$(grep -c "^PASS: fuzz_" "$TOP/build-fuzz/fuzz.out" || true)
	f=$(grep -c "^FAIL: fuzz_" "$TOP/build-fuzz/fuzz.out" || true)
	if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then
		f=1	# the fuzz build failed
		tail -30 "$TOP/build-fuzz/fuzz.out"
	elif [ "$f" -ne 0 ]; then
		grep -A40 "^FAIL: fuzz_" "$TOP/build-fuzz/fuzz.out"
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	phase end
	printf '%s' "$slow"
	echo "phases:${phases%,} (the kernel module in QEMU is t-kmod.sh, in the tests)"
	echo "$passed passed, $failed failed, $skipped skipped"
	[ "$failed" -eq 0 ]
	;;
*)
	echo "usage: ./dev.sh run [SHIMTOP-OPTIONS] | ./dev.sh test | ./dev.sh fuzz [SECONDS] | ./dev.sh packages run|test" >&2
	exit 2
	;;
esac
