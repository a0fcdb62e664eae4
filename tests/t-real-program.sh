#!/bin/sh
# t-real-program.sh - the same agreement on a program nobody here wrote:
# Debian's perl running a busy loop, attached with -p.  Perl's hot
# functions (Perl_pp_*, Perl_runops_standard) are exported from libperl.
. "$TESTS_DIR/lib.sh"

[ -x /usr/bin/perl ] || skip "Debian's /usr/bin/perl is not installed"
/usr/bin/perl -e 'my %h; my $s = 0;
	for my $i (1 .. 400_000_000) { $s += ($i * 7) % 13; $h{$i % 1000} .= "x" if $i % 97 == 0;
	  $h{$i % 1000} = "" if length($h{$i % 1000}) > 100 }' &
PERL_PID=$!
BG_PIDS="$BG_PIDS $PERL_PID"
sleep 0.5
compare_with_perf "$PERL_PID" "perl"
grep -q "Perl_" "$TMP/shimtop.json" || fail "no libperl symbols resolved"
finish
