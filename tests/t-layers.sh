#!/bin/sh
# t-layers.sh - the core library (sources, rings, symbols, model) needs
# neither ncurses nor json-c: nothing in it refers to their symbols, and
# a unit test linked against it alone carries neither library.
. "$TESTS_DIR/lib.sh"

command -v nm >/dev/null || skip "nm (binutils) is not installed"
core="$TESTS_BIN/../libshimtop-core.a"
front="$TESTS_BIN/../libshimtop-front.a"
[ -f "$core" ] || fail "no core library at $core"

front_only=$(nm -u "$core" | grep -E ' (json_object|initscr|newwin|wrefresh|wadd|waddnwstr|ini_parse)' | sort -u)
[ -z "$front_only" ] || fail "the core refers to front-end libraries: $front_only"
# The check above must be able to fail: the front end does refer to them.
nm -u "$front" | grep -q ' json_object_new_object' ||
	fail "the front-end library does not use json-c: this check checks nothing"
nm -u "$front" | grep -qE ' (initscr|doupdate)$' ||
	fail "the front-end library does not use curses: this check checks nothing"
if command -v ldd >/dev/null; then
	linked=$(ldd "$TESTS_BIN/test_model" | grep -E 'libncurses|libtinfo|libjson-c' || true)
	[ -z "$linked" ] || fail "test_model links front-end libraries: $linked"
fi
finish
