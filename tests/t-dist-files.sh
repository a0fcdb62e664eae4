#!/bin/sh
# t-dist-files.sh - every file of the tree a test reads by name
# (under $TESTS_DIR) is there.  Run in the release tarball's build (dev.sh
# test runs the plain suite inside make distcheck), it proves the tarball
# holds what every test reads, also on paths that skipped there.
. "$TESTS_DIR/lib.sh"

n=0
for t in "$TESTS_DIR"/t-*.sh; do
	for ref in $(grep -o '\$TESTS_DIR/[A-Za-z0-9_./-]*' "$t" | sort -u); do
		[ -e "$TESTS_DIR/${ref#\$TESTS_DIR/}" ] ||
			fail "$(basename "$t") reads $ref, which this tree lacks (EXTRA_DIST in Makefile.am)"
		n=$((n + 1))
	done
done
# The pattern found them: a test suite that names no file proves nothing.
[ "$n" -ge 40 ] || fail "only $n files named by the tests were found"
echo "$n names of files in the tree, each there"
finish
