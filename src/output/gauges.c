/* gauges.c - the session's gauges (see gauges.h). */
#include "output/gauges.h"
#include "model/model.h"
#include "session/session.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct gauges {
	struct gauge *g;
	size_t n;
};

__attribute__((format(printf, 6, 7)))
static void add(struct gauges *gs, const char *source, const char *name, double fill,
		bool bad, const char *meaning_fmt, ...)
{
	struct gauge *g;
	va_list ap;

	if (gs->n == GAUGES_MAX)
		return;
	g = &gs->g[gs->n++];
	memset(g, 0, sizeof(*g));
	g->source = source;
	g->name = name;
	g->fill = fill;
	g->bad = bad;
	va_start(ap, meaning_fmt);
	vsnprintf(g->meaning, sizeof(g->meaning), meaning_fmt, ap);
	va_end(ap);
}

/* The value of the gauge just added. */
__attribute__((format(printf, 2, 3)))
static void value(struct gauges *gs, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(gs->g[gs->n - 1].value, sizeof(gs->g[0].value), fmt, ap);
	va_end(ap);
}

static double share(uint64_t part, uint64_t whole)
{
	return whole ? (double)part / (double)whole : 0;
}

static void perf_gauges(const struct session *s, struct gauges *gs)
{
	const struct model *m = session_whole(s);
	const struct st_period *p = &session_info(s)->period;
	uint64_t dropped = session_dropped(s), seen = m->samples + m->kernel_lost + dropped;
	double rate = model_rate(m), lost = share(m->kernel_lost + dropped, seen);

	/* A clock samples per CPU-second of the target; a frequency per thread. */
	if (p->unit == ST_PERIOD_NS && p->value) {
		double per_cpu = 1e9 / (double)p->value;

		long cpus = sysconf(_SC_NPROCESSORS_ONLN);

		add(gs, "perf", "rate", rate / per_cpu / (double)(cpus > 0 ? cpus : 1), false,
		    "%.0f/s at %.0f/s for each CPU the target keeps busy: %.2f CPUs",
		    rate, per_cpu, rate / per_cpu);
	} else if (p->unit == ST_PERIOD_HZ) {
		add(gs, "perf", "rate", -1, false, "%.0f/s at %llu Hz a thread while it runs",
		    rate, (unsigned long long)p->value);
	} else {
		add(gs, "perf", "rate", -1, false, "%.0f/s, one sample every %llu events",
		    rate, (unsigned long long)p->value);
	}
	value(gs, "%.0f/s", rate);

	add(gs, "perf", "lost", lost, lost > 0.01,
	    lost > 0.01 ? "the kernel (lost) or shimtop's ring (dropped) shed samples: "
			  "lower the rate with ] (or -F/-c)"
			: "no samples shed, or too few to matter");
	value(gs, "%.2f%% (%llu lost, %llu dropped)", 100 * lost,
	      (unsigned long long)m->kernel_lost, (unsigned long long)dropped);

	add(gs, "perf", "throttled", -1, m->throttled > 0,
	    m->throttled ? "the kernel cut the rate (kernel.perf_event_max_sample_rate): "
			   "lower it with ], or raise that limit"
			 : "the kernel never cut the rate");
	value(gs, "%llu times", (unsigned long long)m->throttled);

	if (m->ipc_cycles >= 0) {
		double mux = share(m->multiplexed, m->samples);

		add(gs, "perf", "multiplexed", mux, mux > 0.05,
		    mux > 0.05 ? "the counters were shared with other users: IPC comes from "
				 "the rest; sample fewer events, stop the other user"
			       : "the counters ran the whole time");
		value(gs, "%.1f%% of samples", 100 * mux);
	}

	if (m->chains) {
		add(gs, "perf", "call chains", share(m->chains, m->samples), false,
		    "samples with a chain; mean %.1f frames (code without frame pointers "
		    "cuts chains short)", (double)m->chain_frames / (double)m->chains);
		value(gs, "%.1f%%", 100 * share(m->chains, m->samples));
	}

	if (m->unwind_broken && m->kernel_walked) {
		double walked = share(m->kernel_walked, m->auto_fp + m->auto_dwarf + m->kernel_walked);

		add(gs, "perf", "kernel-walked", walked, false,
		    "call chains walked by their CFI in the kernel as each sample was taken "
		    "(shimtop's BPF walker); the rest (%.1f%%) unwound from their stack copies "
		    "here, or kept as frame pointers gave them", 100 * (1 - walked));
		value(gs, "%.1f%% in the kernel", 100 * walked);
	} else if (m->unwind_broken && m->auto_fp + m->auto_dwarf) {
		double unwound = share(m->auto_dwarf, m->auto_fp + m->auto_dwarf);

		add(gs, "perf", "whole chains", 1 - unwound, false,
		    "call chains kept as frame pointers gave them (they reach main or a "
		    "thread's start); the rest (%.1f%%) unwound by DWARF from the stack copy",
		    100 * unwound);
		value(gs, "%.1f%% by frame pointers", 100 * (1 - unwound));
	} else if (m->fp_user_chains) {
		double rootless = share(m->fp_rootless, m->fp_user_chains);

		add(gs, "perf", "whole chains", 1 - rootless, rootless >= 0.25,
		    "user call chains that reach main or a thread's start%s%s",
		    rootless >= 0.25 ? ": the rest stop early in code without frame pointers "
				       "(as Debian builds); " : "",
		    rootless >= 0.25 ? model_unwind_hint(m) : "");
		value(gs, "%.1f%%", 100 * (1 - rootless));
	}

	if (m->tree.samples && m->tree_frames) {
		double unknown = share(m->tree_unknown, m->tree_frames);
		double cut = share(m->tree.truncated + m->tree.capped, m->tree.samples);

		add(gs, "perf", "call tree", unknown, unknown > 0.1 || cut > 0.05,
		    "callers no symbol explains; %.1f%% of samples on a cut chain%s",
		    100 * cut, unknown > 0.1 ? ": code without frame pointers or symbols "
		    "(install -dbgsym packages, DEBUGINFOD_URLS)" : cut > 0.05
		    ? ": deep recursion or the kernel's stack limit" : "");
		value(gs, "%.1f%% unknown", 100 * unknown);
	}

	{
		double unknown = share(m->unknown, m->samples);

		add(gs, "perf", "unknown", unknown, unknown > 0.1,
		    unknown > 0.1 ? "addresses no symbol explains: stripped libraries "
				    "(install -dbgsym packages or set DEBUGINFOD_URLS), JIT code"
				  : "nearly every address has its symbol");
		value(gs, "%.1f%% of samples", 100 * unknown);
	}
}

/*
 * What the observer takes from the target's core (SHIM, ISCA 2015, §4.3,
 * Fig. 6): its own IPC beside the target's and the whole core's, and its
 * share of the core's instructions.  Only the core-wide counters show it.
 */
static void observer_effect_gauge(const struct obs_model *o, struct gauges *gs)
{
	uint64_t core_i = o->hw_delta_all[1] + o->self_delta_all[1];
	double self_share = share(o->self_delta_all[1], core_i);

	if (!o->have_self) {
		add(gs, "observer", "effect", -1, false, "%s",
		    o->have_hardware ? "this recording has the target's core counts only, "
				       "not the observer's own"
				     : "needs the core's counters (an SMT sibling and "
				       "core-wide counting): the observer's note says why not here");
		value(gs, "unavailable");
		return;
	}
	add(gs, "observer", "effect", self_share, self_share > 0.5,
	    "IPC target %.2f, observer %.2f, core %.2f; the value is the observer's "
	    "share of the core's instructions%s", obs_model_hardware_ipc(o),
	    obs_model_self_ipc(o), obs_model_core_ipc(o), self_share > 0.5
	    ? ": it competes with the target, raise --observer-period" : "");
	value(gs, "%.1f%%", 100 * self_share);
}

static void observer_gauges(const struct session *s, struct gauges *gs)
{
	const struct obs_model *o = &session_whole(s)->obs;
	const struct dte *d = &o->dte;
	double acc = dte_share(d, d->accepted) / 100;
	/* A replay or snapshot has no observer of its own: the period its meta data said. */
	double target = session_has_observer(s) ? (double)session_observer_info(s)->period.value
						: (double)o->meta.period;
	double median = hist_quantile(&o->period, 0.5);
	uint64_t drops = o->missing + session_observer_dropped(s);

	add(gs, "observer", "taken", -1, false, "observer samples over %.1f s",
	    o->tsc_hz && o->last_tsc > o->first_tsc
	    ? (double)(o->last_tsc - o->first_tsc) / (double)o->tsc_hz : 0);
	value(gs, "%llu", (unsigned long long)d->taken);

	add(gs, "observer", "DTE accepted", acc, acc < 0.5,
	    acc < 0.5 ? "most windows were disturbed: give the observer a core of its "
			"own (--observer-cpu) and the target its sibling (--pin-target)"
		      : "rates come from undisturbed windows (|CPC - 1| <= %g)", o->tolerance);
	value(gs, "%.1f%%", 100 * acc);

	add(gs, "observer", "rejected", -1, false,
	    "by cause: CPC %.1f%% (clocks disagree), long window %.1f%% (preempted), "
	    "clock %.1f%%", dte_share(d, d->rejected_cpc), dte_share(d, d->rejected_window),
	    dte_share(d, d->rejected_clock) + dte_share(d, d->rejected_backwards));
	value(gs, "%llu", (unsigned long long)(d->taken - d->accepted - d->first));

	add(gs, "observer", "CPC", -1, false,
	    "median and 99th percentile of the clocks' ratio; 1 is an undisturbed window");
	value(gs, "%.3f, p99 %.3f", hist_quantile(&o->cpc, 0.5), hist_quantile(&o->cpc, 0.99));

	add(gs, "observer", "period", target > 0 && median > 0 ? fmin(target / median, 1) : -1,
	    target > 0 && median > 2 * target,
	    target > 0 && median > 2 * target
	    ? "the observer runs slower than asked: its CPU is shared; give it its own"
	    : target > 0 ? "achieved median against the target (TSC cycles)"
			 : "achieved median, as fast as it can (TSC cycles)");
	value(gs, "%.0f (target %.0f)", median, target);

	add(gs, "observer", "gap", -1, false,
	    "median TSC cycles between accepted samples; p90 %.0f", hist_quantile(&o->gap, 0.9));
	value(gs, "%.0f", hist_quantile(&o->gap, 0.5));

	add(gs, "observer", "ring drops", -1, drops > 0,
	    drops ? "batches the consumer never saw: the UI fell behind; raise the "
		    "observer's period with --observer-period"
		  : "every batch arrived");
	value(gs, "%llu batches", (unsigned long long)drops);

	if (session_observer_info(s)->run_seconds > 0) {
		const struct st_source_info *obs = session_observer_info(s);
		double cpu = obs->cpu_seconds / obs->run_seconds;

		add(gs, "observer", "own CPU", fmin(cpu, 1), false,
		    "of one CPU, its thread's: it spins between samples by design; "
		    "periods over 200 us let it sleep (--observer-period)");
		value(gs, "%.0f%%", 100 * cpu);
	}
	observer_effect_gauge(o, gs);
}

size_t gauges_collect(const struct session *s, struct gauge *out)
{
	struct gauges gs = { out, 0 };

	perf_gauges(s, &gs);
	if (session_whole(s)->obs.active)
		observer_gauges(s, &gs);
	return gs.n;
}
