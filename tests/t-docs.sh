#!/bin/sh
# t-docs.sh - the man page names every option --help lists and no other
# (both ways, long and short), renders without warnings, and `make install
# DESTDIR=...` installs the man pages, bash completion (which completes
# options, event names, PIDs and -p lists), the pkg-config file (with
# which a C++ program builds against <shimtop/signals.h>) and the themes.
. "$TESTS_DIR/lib.sh"
: "${TOP_BUILDDIR:?run through make check}"
SRC=$TESTS_DIR/..

"$SHIMTOP" --help >"$TMP/help"
opts() { grep -o -- '--[a-z][a-z-]*' "$1" | sort -u; }
# shimtop.1 is made from shimtop.1.in with the install paths.
MAN_shimtop=$TOP_BUILDDIR/doc/shimtop.1 MAN_demo=$SRC/doc/shimtop-demo.1
sed 's/\\-/-/g' "$MAN_shimtop" >"$TMP/man"
opts "$TMP/help" >"$TMP/help.opts"
opts "$TMP/man" >"$TMP/man.opts"
missing=$(comm -23 "$TMP/help.opts" "$TMP/man.opts" | tr '\n' ' ')
extra=$(comm -13 "$TMP/help.opts" "$TMP/man.opts" | tr '\n' ' ')
[ -z "$missing" ] || fail "shimtop.1 lacks $missing"
[ -z "$extra" ] || fail "shimtop.1 names options --help does not: $extra"
for s in $(grep -Eo '^  -[a-zA-Z],' "$TMP/help" | tr -d ' ,'); do
	grep -q "^\.BR $s\"* \|^\.BR $s \|^\.BR $s\$" "$TMP/man" || fail "shimtop.1 lacks $s"
done
[ "$(opts "$TMP/help" | wc -l)" -ge 30 ] || fail "--help lists too few options"
# No byte a terminal or troff acts on in the sources: a form feed where a
# \f font escape was meant rendered as "I/proc/kallsymsR", and neither
# man --warnings nor groff -ww says so.
command -v groff >/dev/null && command -v man >/dev/null ||
	fail "groff or man is missing: install groff-base and man-db (./dev.sh packages test)"
for f in "$MAN_shimtop" "$MAN_demo"; do
	page=$(basename "$f" .1)
	bad=$(LC_ALL=C grep -n "$(printf '[\001-\010\013-\037\177]')" "$f")
	[ -z "$bad" ] || fail "$page.1 holds control bytes: $(printf '%s' "$bad" | cat -A | head -3)"
	groff -ww -man -Tutf8 "$f" >/dev/null 2>"$TMP/groff.err"
	[ -s "$TMP/groff.err" ] && fail "$page.1 has groff warnings: $(head -3 "$TMP/groff.err")"
	LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$f" >"$TMP/$page.txt" 2>"$TMP/man.err"
	[ -s "$TMP/man.err" ] && fail "$page.1 renders with warnings: $(cat "$TMP/man.err")"
	grep -q "^NAME" "$TMP/$page.txt" || fail "$page.1 has no NAME section"
done
grep -q "XDG_CONFIG_HOME" "$TMP/shimtop.txt" || fail "shimtop.1 lacks the config file"

# dev.sh's lists: running installs no test tool (QEMU, kernel, Go...), the
# test list has them, and every package configure asks for is to run
# (clang among them: it compiles the BPF stack walker).
run=" $("$SRC/dev.sh" packages run | tr '\n' ' ') "
test=" $("$SRC/dev.sh" packages test | tr '\n' ' ') "
for p in qemu-system-x86 linux-source linux-image-amd64 linux-headers-amd64 golang-go nodejs \
	cppcheck sqlite3 busybox-static prometheus tmux; do
	case "$run" in *" $p "*) fail "./dev.sh packages run lists $p, a test's tool" ;; esac
	case "$test" in *" $p "*) ;; *) fail "./dev.sh packages test lacks $p" ;; esac
done
for p in $(grep -o "install the Debian package [a-z0-9.+-]*" "$SRC/configure.ac" | awk '{ print $5 }'); do
	[ "$p" = linux-libc-dev ] && continue	# build-essential's
	case "$run" in *" $p "*) ;; *) fail "configure asks for $p; ./dev.sh packages run lacks it" ;; esac
done

# make install into a staging root.
ROOT=$TMP/root
make -s -C "$TOP_BUILDDIR" install DESTDIR="$ROOT" >"$TMP/install.log" 2>&1 ||
	fail "make install failed: $(tail -5 "$TMP/install.log")"
prefix=$(sed -n 's/^prefix=//p' "$TOP_BUILDDIR/shimtop-signals.pc")
P=$ROOT$prefix
for f in bin/shimtop bin/shimtop-demo share/man/man1/shimtop.1 share/man/man1/shimtop-demo.1 \
	share/bash-completion/completions/shimtop share/pkgconfig/shimtop-signals.pc \
	include/shimtop/signals.h share/shimtop/themes/default.theme share/shimtop/themes/mono.theme \
	lib/systemd/system/shimtop.service; do
	[ -f "$P/$f" ] || fail "make install did not install $f"
done
# The installed page names where the themes went, whatever the prefix
# (a break point, \:, after each slash).
sed 's/\\://g' "$P/share/man/man1/shimtop.1" | grep -qx "\.I $prefix/share/shimtop/themes" ||
	fail "shimtop.1 names themes in $(grep -A1 '^\.I .*themes' "$P/share/man/man1/shimtop.1" | head -1), not $prefix/share/shimtop/themes"
# A package builder's prefix, longer than the page is wide (200
# characters): the page made for it renders without a warning, the path
# whole across its lines.
long=/opt/$(printf 'a-package-builders-prefix-%02d/' 1 2 3 4 5 6 7)build
if [ -e "$SRC/config.status" ]; then
	echo "note: the source directory is configured in place: a long prefix is checked from out-of-tree builds"
elif mkdir "$TMP/prefix" && (cd "$TMP/prefix" && "$SRC/configure" --prefix="$long" >/dev/null 2>&1 &&
	make -s doc/shimtop.1 >/dev/null 2>&1); then
	groff -ww -man -Tutf8 "$TMP/prefix/doc/shimtop.1" >/dev/null 2>"$TMP/groff.err"
	[ -s "$TMP/groff.err" ] && fail "shimtop.1 for a prefix of ${#long} characters has groff warnings: $(head -3 "$TMP/groff.err")"
	LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$TMP/prefix/doc/shimtop.1" >"$TMP/long.txt" 2>"$TMP/man.err"
	[ -s "$TMP/man.err" ] && fail "shimtop.1 for a prefix of ${#long} characters: $(head -3 "$TMP/man.err")"
	groff -man -Tascii -P-bcou "$TMP/prefix/doc/shimtop.1" 2>/dev/null | tr -d ' \n' |
		grep -qF "$long/share/shimtop/themes" ||
		fail "shimtop.1 for a long prefix does not name $long/share/shimtop/themes"
	[ ${#long} -ge 200 ] || fail "the long prefix is ${#long} characters"
else
	fail "configure --prefix of ${#long} characters and make doc/shimtop.1 failed"
fi
# The unit runs the installed shimtop, serving on loopback to holders of
# the token it keeps in its state directory.
grep -qx "ExecStart=$prefix/bin/shimtop --serve 127.0.0.1:9464 -a --serve-token %S/shimtop/token" \
	"$P/lib/systemd/system/shimtop.service" ||
	fail "shimtop.service: $(grep ExecStart "$P/lib/systemd/system/shimtop.service")"
if command -v systemd-analyze >/dev/null; then
	# Only the binary's absence (it is in the staging root) may be said.
	systemd-analyze verify "$P/lib/systemd/system/shimtop.service" 2>&1 |
		grep -v "is not executable\|man shimtop" >"$TMP/unit.err"
	[ ! -s "$TMP/unit.err" ] || fail "shimtop.service does not verify: $(cat "$TMP/unit.err")"
fi

# The pkg-config file gives the header's directory; a C++ program builds with it.
cflags=$(pkg-config --define-variable=prefix="$P" --cflags "$P/share/pkgconfig/shimtop-signals.pc") ||
	fail "pkg-config cannot read shimtop-signals.pc"
cflags=$(echo $cflags)
[ "$cflags" = "-I$P/include" ] || fail "shimtop-signals.pc: cflags '$cflags'"
cat >"$TMP/use.cc" <<'CC'
#include <shimtop/signals.h>
int main() { shimtop_signals *s = shimtop_signals_open("phase", nullptr, 0);
	shimtop_tag(shimtop_signals_thread(s), 1, 0); shimtop_signals_close(); return s ? 0 : 1; }
CC
if command -v g++ >/dev/null; then
	g++ -Wall -Wextra -Werror -pedantic $cflags "$TMP/use.cc" -o "$TMP/use" 2>"$TMP/cc.err" ||
		fail "a C++ program does not build with the installed header: $(cat "$TMP/cc.err")"
	"$TMP/use" || fail "the C++ program could not open its segment"
fi

# Completion: options, events, PIDs, the last id of a -p list.
complete_words() {
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _shimtop;
		printf "%s\n" "${COMPREPLY[@]}"' sh "$P/share/bash-completion/completions/shimtop" "$@"
}
complete_words "$SHIMTOP" --all | grep -qx -- "--all-cpus" || fail "completion: --all not completed"
complete_words "$SHIMTOP" -e cpu-c | grep -qx "cpu-clock" || fail "completion: -e cpu-c"
complete_words "$SHIMTOP" -p "$$" | grep -qx "$$" || fail "completion: -p $$"
complete_words "$SHIMTOP" -p "1,$$" | grep -qx "1,$$" || fail "completion: -p 1,$$"
complete_words "$SHIMTOP" -s pid,s | grep -qx "pid,sym" || fail "completion: -s pid,s"
complete_words "$SHIMTOP" --export sp | grep -qx "speedscope" || fail "completion: --export sp"
complete_words "$SHIMTOP" --call-graph dw | grep -qx "dwarf" || fail "completion: --call-graph dw"
finish
