#!/bin/sh
# t-layers.sh - the layers run one way (ring < symbols < sampler < model
# < session < output < ui): no include runs up and struct session is
# opaque above its layer (check_layers.py), the core
# library calls nothing the front-end library defines, and it needs
# neither ncurses nor json-c: nothing in it refers to their symbols, and
# a unit test linked against it alone carries neither library.
. "$TESTS_DIR/lib.sh"

command -v nm >/dev/null || skip "nm (binutils) is not installed"
core="$TESTS_BIN/../libshimtop-core.a"
front="$TESTS_BIN/../libshimtop-front.a"
[ -f "$core" ] || fail "no core library at $core"

# Includes: none runs up; and the check finds one planted.
python3 "$TESTS_DIR/check_layers.py" "$TESTS_DIR/../src" >"$TMP/layers" ||
	fail "an include runs up a layer: $(grep -v '^[0-9]* files' "$TMP/layers")"
mkdir -p "$TMP/src/ring" "$TMP/src/ui" "$TMP/src/model"
for i in $(seq 1 50); do echo '#include "ring/a.h"' >"$TMP/src/model/m$i.c"; done
echo '#include "ui/ui.h"' >"$TMP/src/ring/a.h"
: >"$TMP/src/ui/ui.h"
# The session is opaque above its layer: a front may not include its state.
mkdir -p "$TMP/src/session"
: >"$TMP/src/session/session_state.h"
echo '#include "session/session_state.h"' >"$TMP/src/ui/peek.c"
python3 "$TESTS_DIR/check_layers.py" "$TMP/src" >"$TMP/planted" &&
	fail "check_layers.py did not see ring/a.h include ui/ui.h"
grep -q 'ring/a.h (ring) includes ui/ui.h (ui)' "$TMP/planted" ||
	fail "check_layers.py did not name the planted include: $(cat "$TMP/planted")"
grep -q 'ui/peek.c (ui) includes session/session_state.h' "$TMP/planted" ||
	fail "check_layers.py let a front include the session's state: $(cat "$TMP/planted")"

# Calls: the core refers to nothing the front end defines.
nm --defined-only "$front" | awk 'NF == 3 && $2 ~ /[TDBR]/ { print $3 }' | sort -u >"$TMP/front-defs"
nm -u "$core" | awk '{ print $NF }' | sort -u >"$TMP/core-undef"
up_calls=$(comm -12 "$TMP/front-defs" "$TMP/core-undef")
[ -z "$up_calls" ] || fail "the core library calls the front end's: $up_calls"
[ -s "$TMP/front-defs" ] || fail "no symbols defined in the front-end library: this check checks nothing"

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
