#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# load.sh [MODULE.ko] - loads shimtop's IBS module with the ibs_op PMU's
# perf type and its cnt_ctl bit (count ops, not cycles) as this kernel's
# sysfs describes them: nothing about the PMU is assumed here.
#
# SHIMTOP_IBS_PMU (the PMU's sysfs directory) and INSMOD (the loader)
# are for tests.
set -eu
pmu=${SHIMTOP_IBS_PMU:-/sys/bus/event_source/devices/ibs_op}
ko=${1:-$(dirname "$0")/shimtop_ibs.ko}

if [ ! -r "$pmu/type" ]; then
	echo "load.sh: the kernel offers no ibs_op PMU ($pmu): no IBS on this CPU or in this VM" >&2
	exit 1
fi
type=$(cat "$pmu/type")
case $type in
'' | *[!0-9]*)
	echo "load.sh: $pmu/type reads '$type', not a perf type" >&2
	exit 1
	;;
esac
config=0
if [ -r "$pmu/format/cnt_ctl" ]; then
	format=$(cat "$pmu/format/cnt_ctl")
	bit=${format#config:}
	case $format in config:*) ;; *) bit=x ;; esac
	case $bit in
	[0-9] | [1-5][0-9] | 6[0-3]) config=$((1 << bit)) ;;
	*)
		echo "load.sh: $pmu/format/cnt_ctl reads '$format', not one bit of config" >&2
		exit 1
		;;
	esac
fi
exec ${INSMOD:-insmod} "$ko" ibs_type="$type" ibs_config="$config"
