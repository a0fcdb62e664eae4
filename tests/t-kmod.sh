#!/bin/sh
# t-kmod.sh - the IBS module (src/kmod/): builds against Debian's
# linux-headers-amd64 with no warning (W=1, -Werror), is checkpatch
# --strict clean, and in a QEMU guest (TCG) booting Debian's
# linux-image-amd64 with a busybox initramfs: refuses to load without IBS,
# loads with selftest=1, passes the client's checks (tests/kmod/), and
# reloads 20 times with no warning, oops or leak.  Skips (77) only when
# QEMU cannot start, or in a sanitized build's suite.
. "$TESTS_DIR/lib.sh"
die() { fail "$*"; finish; }
# Nothing of shimtop's build runs here (the module, its client, checkpatch
# and the guest are the same whatever the build): a sanitized build's
# suite does not boot the guest a second time.
[ "${SHIMTOP_SANITIZED:-no}" = yes ] &&
	skip "runs nothing of a sanitized build: the plain suite (make check, distcheck) runs it"

SRC=$(cd "$TESTS_DIR/.." && pwd)
for p in qemu-system-x86_64 busybox cpio gzip; do
	command -v "$p" >/dev/null || die "$p is missing: install dev.sh's packages"
done
ldd /bin/busybox 2>&1 | grep -q "not a dynamic" ||
	die "/bin/busybox is not static: install busybox-static"
# The newest kernel image with headers of the same version.
VER=
for k in $(ls -v /boot/vmlinuz-*-amd64 2>/dev/null); do
	v=${k#/boot/vmlinuz-}
	[ -d "/usr/src/linux-headers-$v" ] && VER=$v
done
[ -n "$VER" ] || die "no /boot/vmlinuz-*-amd64 with its headers: install linux-image-amd64 and linux-headers-amd64"
[ -r "/boot/vmlinuz-$VER" ] || die "cannot read /boot/vmlinuz-$VER (run as root)"

# --- build: any warning fails (Kbuild sets -Werror, the Makefile W=1) ---
cp -r "$SRC/src/kmod" "$TMP/kmod"
chmod -R u+w "$TMP/kmod"
# (A make of its own: not a job of make check's jobserver.)
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$TMP/kmod" KDIR="/usr/src/linux-headers-$VER" \
	>"$TMP/build.log" 2>&1 ||
	die "the module does not build against $VER: $(grep -E 'error|warning' "$TMP/build.log" | head -5)"
# (modpost says WARNING: of a symbol the kernel does not export to us.)
! grep -Eiq "(warning|error):" "$TMP/build.log" ||
	die "the module builds with warnings: $(grep -Ei '(warning|error):' "$TMP/build.log" | head -5)"
[ -f "$TMP/kmod/shimtop_ibs.ko" ] || die "no shimtop_ibs.ko"
modinfo "$TMP/kmod/shimtop_ibs.ko" | grep -q "^license: *GPL$" || die "the module is not GPL"
modinfo "$TMP/kmod/shimtop_ibs.ko" | grep -q "^vermagic: *$VER " || die "vermagic is not $VER"
echo "ok built against $VER with W=1, no warnings"

# --- the loader: the PMU's type and cnt_ctl bit as sysfs says, else why not ---
pmu=$TMP/ibs_op
mkdir -p "$pmu/format"
echo 11 >"$pmu/type"
echo config:19 >"$pmu/format/cnt_ctl"
got=$(SHIMTOP_IBS_PMU=$pmu INSMOD=echo sh "$SRC/src/kmod/load.sh" m.ko 2>&1)
[ "$got" = "m.ko ibs_type=11 ibs_config=524288" ] || fail "load.sh with cnt_ctl at bit 19: $got"
echo config:7 >"$pmu/format/cnt_ctl"
got=$(SHIMTOP_IBS_PMU=$pmu INSMOD=echo sh "$SRC/src/kmod/load.sh" m.ko 2>&1)
[ "$got" = "m.ko ibs_type=11 ibs_config=128" ] || fail "load.sh with cnt_ctl at bit 7: $got"
for bad in config:19-20 config1:3 config:64; do
	echo "$bad" >"$pmu/format/cnt_ctl"
	got=$(SHIMTOP_IBS_PMU=$pmu INSMOD=echo sh "$SRC/src/kmod/load.sh" m.ko 2>&1) &&
		fail "load.sh took cnt_ctl '$bad': $got"
	case $got in *"reads '$bad', not one bit of config"*) ;;
	*) fail "load.sh on cnt_ctl '$bad' said: $got" ;; esac
done
rm "$pmu/format/cnt_ctl"
got=$(SHIMTOP_IBS_PMU=$pmu INSMOD=echo sh "$SRC/src/kmod/load.sh" m.ko 2>&1)
[ "$got" = "m.ko ibs_type=11 ibs_config=0" ] || fail "load.sh without cnt_ctl (cycles): $got"
got=$(SHIMTOP_IBS_PMU=$TMP/none INSMOD=echo sh "$SRC/src/kmod/load.sh" m.ko 2>&1) &&
	fail "load.sh without a PMU loaded: $got"
case $got in *"the kernel offers no ibs_op PMU"*) ;; *) fail "load.sh without a PMU said: $got" ;; esac
echo "ok load.sh reads the PMU's type and cnt_ctl from sysfs"

# --- checkpatch --strict, from the kernel's source package ---
SRCTAR=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | tail -1)
[ -n "$SRCTAR" ] || die "no /usr/src/linux-source-*.tar.xz for checkpatch.pl: install linux-source"
top=$(basename "$SRCTAR" .tar.xz)
tar -xJf "$SRCTAR" -C "$TMP" "$top/scripts/checkpatch.pl" "$top/scripts/spelling.txt" \
	"$top/scripts/const_structs.checkpatch" || die "cannot extract checkpatch.pl from $SRCTAR"
(cd "$SRC/src/kmod" && perl "$TMP/$top/scripts/checkpatch.pl" --strict --no-tree \
	--ignore FILE_PATH_CHANGES -f shimtop_ibs.c uapi/shimtop_ibs.h Kbuild Makefile) \
	>"$TMP/checkpatch.out" 2>&1
if grep -q "^total: 0 errors, 0 warnings, 0 checks" "$TMP/checkpatch.out" &&
	! grep -Eq "^total: ([1-9]|0 errors, [1-9]|0 errors, 0 warnings, [1-9])" "$TMP/checkpatch.out"; then
	echo "ok checkpatch --strict clean"
else
	fail "checkpatch --strict: $(grep -E '^(ERROR|WARNING|CHECK)' "$TMP/checkpatch.out" | head -5)"
fi

# --- the guest: busybox, the module, the client, init ---
cc -static -O2 -Wall -Wextra -Werror -pthread -o "$TMP/kmod_client" \
	"$TESTS_DIR/kmod/kmod_client.c" || die "the test client does not build"
R=$TMP/root
mkdir -p "$R/bin" "$R/proc" "$R/sys" "$R/dev" "$R/tmp"
cp /bin/busybox "$R/bin/busybox"
cp "$TESTS_DIR/kmod/init" "$R/init"
chmod 755 "$R/init"
cp "$TMP/kmod/shimtop_ibs.ko" "$TMP/kmod_client" "$R/"
(cd "$R" && find . | cpio -o -H newc 2>/dev/null | gzip -1) >"$TMP/initrd.gz" ||
	die "cannot make the initramfs"

# TCG (no KVM here); an AMD CPU model, two CPUs for two rings.
timeout 170 qemu-system-x86_64 -accel tcg -cpu EPYC -smp 2 -m 512 -nodefaults \
	-display none -no-reboot -serial "file:$TMP/console" \
	-kernel "/boot/vmlinuz-$VER" -initrd "$TMP/initrd.gz" \
	-append "console=ttyS0 panic=-1 loglevel=4" >"$TMP/qemu.out" 2>&1
st=$?
if ! grep -q "kmod-test:" "$TMP/console" 2>/dev/null; then
	[ "$st" -eq 124 ] && die "the guest ran past 170 s: $(tail -5 "$TMP/console")"
	grep -q "Run /init" "$TMP/console" 2>/dev/null &&
		die "the guest's init did not run: $(tail -5 "$TMP/console")"
	skip "QEMU could not start the guest (status $st): $(head -3 "$TMP/qemu.out")"
fi
grep -E "^(ok|FAIL|figure|kmod-test|kmod_client|kernel log)" "$TMP/console" | tr -d '\r'
grep -q "^kmod-test: PASS" "$TMP/console" ||
	fail "the guest's checks failed: $(grep -E '^FAIL' "$TMP/console" | tr -d '\r' | head -5)"
finish
