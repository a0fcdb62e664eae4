/*
 * test_check.c - shimtop --check's verdicts from made-up figures: a
 * sampling rate within 15% of what the workload's CPU time asks passes
 * and one outside fails with both figures; no CPU time fails; chains at
 * 90% pass and under fail; symbols pass only whole; IPC within 2% of
 * the workload's own count passes, saying what was multiplexed.
 */
#include "check.h"
#include "front/check.h"
#include <json-c/json.h>
#include "ring/record.h"
#include "ring/record_file.h"
#include "sampler/ibs.h"
#include "sampler/source.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <string.h>

static void sampling(void)
{
	char d[320];

	CHECK(check_sampling(4000, 1.0, 4000, d, sizeof(d)) == CHECK_PASS);
	CHECK(strstr(d, "4000 samples for 1.00 s") && strstr(d, "4000 expected"));
	CHECK(check_sampling(3401, 1.0, 4000, d, sizeof(d)) == CHECK_PASS);
	CHECK(check_sampling(3399, 1.0, 4000, d, sizeof(d)) == CHECK_FAIL);
	CHECK(strstr(d, "3399 samples") && strstr(d, "4000 expected"));
	CHECK(check_sampling(4601, 1.0, 4000, d, sizeof(d)) == CHECK_FAIL);
	/* A VM lending half a CPU: the workload's own time says so, and it passes. */
	CHECK(check_sampling(2010, 0.5, 4000, d, sizeof(d)) == CHECK_PASS);
	CHECK(check_sampling(100, 0, 4000, d, sizeof(d)) == CHECK_FAIL);
	CHECK(strstr(d, "no CPU time") != NULL);
}

static void chains(void)
{
	char d[320];

	CHECK(check_chains(0.9, "fp", d, sizeof(d)) == CHECK_PASS);
	CHECK(check_chains(0.899, "fp", d, sizeof(d)) == CHECK_FAIL);
	CHECK(strstr(d, "89.9% of samples' chains reach main (fp") != NULL);
}

static void symbols(void)
{
	char d[320];

	CHECK(check_symbols(4, 4, "", d, sizeof(d)) == CHECK_PASS);
	CHECK(check_symbols(3, 4, "recurse_tree", d, sizeof(d)) == CHECK_FAIL);
	CHECK(strstr(d, "3 of the workload's 4") && strstr(d, "missing: recurse_tree"));
}

/*
 * IPC: the figures a run gives (the model's sums over a group's samples,
 * test_model; the workload's own group read) against each other.
 */
static void ipc(void)
{
	char d[320];

	CHECK(check_ipc(1.25, 0, 1.25 * 1.019, 1.0, d, sizeof(d)) == CHECK_PASS);
	CHECK(strstr(d, "IPC 1.250 from shimtop's group against 1.274") &&
	      strstr(d, "1.9% apart") && strstr(d, "scheduled throughout"));
	CHECK(check_ipc(1.25, 0, 1.25 * 0.981, 1.0, d, sizeof(d)) == CHECK_PASS);
	CHECK(check_ipc(1.25, 0, 1.25 * 1.03, 1.0, d, sizeof(d)) == CHECK_FAIL);
	CHECK(strstr(d, "2.9% apart") != NULL);
	CHECK(check_ipc(1.25, 0, 1.25 * 0.97, 1.0, d, sizeof(d)) == CHECK_FAIL);
	/* Multiplexed on either side: said, and judged on what was scheduled. */
	CHECK(check_ipc(2.0, 0.25, 2.01, 0.8, d, sizeof(d)) == CHECK_PASS);
	CHECK(strstr(d, "multiplexed: 25.0% of samples") && strstr(d, "ran 80.0% of its time"));
	CHECK(check_ipc(2.0, 0, 2.0, 0.5, d, sizeof(d)) == CHECK_PASS);
	CHECK(strstr(d, "ran 50.0%") != NULL);
	/* Nothing to compare: fails, saying which side is missing. */
	CHECK(check_ipc(1.0, 0, 0, 0, d, sizeof(d)) == CHECK_FAIL);
	CHECK(strstr(d, "the workload counted no cycles") != NULL);
	CHECK(check_ipc(0, 1.0, 1.0, 1.0, d, sizeof(d)) == CHECK_FAIL);
	CHECK(strstr(d, "no sample carried usable counters (100.0% multiplexed)") != NULL);
	CHECK(check_ipc(NAN, 0, 1.0, 1.0, d, sizeof(d)) == CHECK_FAIL);
}

#define OP_CAPS		(IBS_CAPS_AVAIL | IBS_CAPS_OPSAM | IBS_CAPS_RDWROPCNT | IBS_CAPS_OPCNT)
#define ARRAY		0x7f0000000000ull
#define ARRAY_BYTES	(64ull << 20)

/* IbsOpData3 as the decoder's table lays it: a load, its address valid, a miss of lat cycles. */
static uint64_t data3(bool load, bool addressed, bool miss, unsigned lat)
{
	return (uint64_t)load << ibs_field_info(IBS_F_LD_OP)->lo |
	       (uint64_t)addressed << ibs_field_info(IBS_F_DC_LIN_VALID)->lo |
	       (uint64_t)miss << ibs_field_info(IBS_F_DC_MISS)->lo |
	       (uint64_t)lat << ibs_field_info(IBS_F_DC_MISS_LAT)->lo;
}

/* An op sample's registers (7, as OP_CAPS promise) in a record of cpumode. */
static size_t ibs_record(void *buf, uint64_t d3, uint64_t lin, uint8_t cpumode, uint8_t nregs)
{
	struct st_ibs *b = buf;

	memset(b, 0, sizeof(*b) + 8 * IBS_MAX_REGS);
	b->h = (struct st_header){ ST_REC_IBS, ST_SOURCE_PERF,
				   (uint32_t)(sizeof(*b) + 8u * nregs) };
	b->pid = b->tid = 7;
	b->time = 1000;
	b->caps = OP_CAPS;
	b->kind = ST_IBS_OP_KIND;
	b->nregs = nregs;
	b->cpumode = cpumode;
	b->family = 0x19;
	b->reg[IBS_OP_DATA3] = d3;
	b->reg[IBS_DC_LIN_AD] = lin;
	return b->h.size;
}

/*
 * IBS op: a recording of a load loop's samples (kernel ones, a fetch, a
 * sample whose registers its capabilities do not promise: not counted),
 * counted and judged: in the array and with latencies, or not.
 */
static void ibs_loads(void)
{
	char path[] = "/tmp/test_check_ibsXXXXXX", d[320], why[200];
	_Alignas(8) unsigned char buf[512];
	struct st_source_info in;
	struct st_file_header h;
	struct check_ibs_loads n;
	struct record_writer *w;
	struct stat st;
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	close(fd);
	memset(&in, 0, sizeof(in));
	snprintf(in.events, sizeof(in.events), "ibs_op");
	in.ipc_cycles = in.ipc_instructions = -1;
	record_header_from_info(&h, &in, 7, "shimtop-demo");
	w = record_writer_open(path, &h);
	CHECK(w != NULL);
	if (!w)
		return;
	/* 90 loads in the array (60 missing, 300 cycles), 10 elsewhere, 50 ops not loads. */
	for (int i = 0; i < 150; i++) {
		uint64_t lin = i < 90 ? ARRAY + 4096u * (uint64_t)i : 0x555500001000ull;

		ibs_record(buf, i < 100 ? data3(true, true, i < 60, i < 60 ? 300 : 0) : 0, lin,
			   ST_MODE_USER, 7);
		CHECK(record_writer_append(w, buf) == 0);
	}
	/* Not counted: the kernel's loads, a record of 8 registers OP_CAPS do not promise. */
	for (int i = 0; i < 40; i++) {
		ibs_record(buf, data3(true, true, true, 300), 0xffffffff81000000ull, ST_MODE_KERNEL, 7);
		CHECK(record_writer_append(w, buf) == 0);
	}
	ibs_record(buf, data3(true, true, false, 0), 0x10, ST_MODE_USER, 8);
	CHECK(record_writer_append(w, buf) == 0);
	CHECK(record_writer_close(w) == 0);

	memset(&n, 0, sizeof(n));
	CHECK(check_ibs_recording(path, ARRAY, ARRAY + ARRAY_BYTES, &n, why, sizeof(why)));
	CHECK(n.ops == 150 && n.loads == 100 && n.addressed == 100 && n.in_array == 90);
	CHECK(n.misses == 60 && n.with_latency == 60 && n.latency_sum == 60 * 300);
	CHECK(n.family == 0x19 && n.caps == OP_CAPS);
	CHECK(check_ibs_loads(&n, d, sizeof(d)) == CHECK_PASS);
	CHECK(strstr(d, "family 25, caps 0x1d: 90 of 100 sampled loads' data addresses") &&
	      strstr(d, "60 of 60 misses with a latency") && strstr(d, "mean 300 cycles"));
	/* Another range (the workload's array misread): few in it, a failure. */
	memset(&n, 0, sizeof(n));
	CHECK(check_ibs_recording(path, ARRAY + ARRAY_BYTES, ARRAY + 2 * ARRAY_BYTES, &n, why,
				  sizeof(why)));
	CHECK(n.in_array == 0 && check_ibs_loads(&n, d, sizeof(d)) == CHECK_FAIL);
	CHECK(strstr(d, "0 of 100 sampled loads") != NULL);
	/* Misses without latencies; too few loads; too few misses. */
	n = (struct check_ibs_loads){ .ops = 100, .loads = 50, .addressed = 50, .in_array = 50,
				      .misses = 40, .with_latency = 30, .latency_sum = 9000 };
	CHECK(check_ibs_loads(&n, d, sizeof(d)) == CHECK_FAIL);
	CHECK(strstr(d, "30 of 40 misses with a latency (75.0%") != NULL);
	n.with_latency = 40;
	CHECK(check_ibs_loads(&n, d, sizeof(d)) == CHECK_PASS);
	n.misses = n.with_latency = 9;
	CHECK(check_ibs_loads(&n, d, sizeof(d)) == CHECK_FAIL);
	n = (struct check_ibs_loads){ .ops = 500, .loads = 30, .addressed = 19, .in_array = 19 };
	CHECK(check_ibs_loads(&n, d, sizeof(d)) == CHECK_FAIL);
	CHECK(strstr(d, "500 op samples, 30 loads, 19 with a data address: too few") != NULL);
	/* A recording cut short, or none: unread, said. */
	CHECK(stat(path, &st) == 0 && truncate(path, st.st_size - 100) == 0);
	memset(&n, 0, sizeof(n));
	CHECK(!check_ibs_recording(path, ARRAY, ARRAY + ARRAY_BYTES, &n, why, sizeof(why)));
	CHECK(strstr(why, "cut short") != NULL);
	unlink(path);
	CHECK(!check_ibs_recording(path, ARRAY, ARRAY + ARRAY_BYTES, &n, why, sizeof(why)));
	CHECK(strstr(why, "could not be read") != NULL);
}

static void observer_period(void)
{
	char d[320];

	CHECK(check_observer_period(440, 426, d, sizeof(d)) == CHECK_PASS);
	CHECK(strstr(d, "fastest period 440 TSC cycles against a floor of 426") &&
	      strstr(d, "1.03x"));
	CHECK(check_observer_period(553, 426, d, sizeof(d)) == CHECK_PASS);
	CHECK(check_observer_period(555, 426, d, sizeof(d)) == CHECK_FAIL);
	CHECK(check_observer_period(440, 0, d, sizeof(d)) == CHECK_FAIL);
	CHECK(strstr(d, "no floor") != NULL);
	CHECK(check_observer_period(0, 426, d, sizeof(d)) == CHECK_FAIL);
	CHECK(strstr(d, "no period") != NULL);
}

/*
 * DTE from the observer's JSON as report_observer.c writes it: rate
 * histograms of [low, high, n] buckets per second, at a 1 GHz TSC so
 * that the bound of a counter stepped every 1,000 cycles, sampled every
 * 10,000, is 1.4 M/s.
 */
static enum check_result dte_of(const char *buckets, unsigned over, unsigned n, unsigned min,
				char *d, size_t len)
{
	char text[1024];
	struct json_object *o;
	enum check_result r;

	snprintf(text, sizeof(text), "{\"tsc_hz\": 1000000000, \"taken\": %u, \"period\": "
		 "{\"p50\": 10150, \"min\": %u}, \"counters\": [{\"rate_samples\": {\"n\": %u, "
		 "\"over\": %u, \"buckets\": [%s]}}]}", n + n / 10, min, n, over, buckets);
	o = json_tokener_parse(text);
	CHECK(o != NULL);
	r = check_dte(o, 1000, 10000, d, len);
	json_object_put(o);
	return r;
}

static void dte(void)
{
	char d[320];
	struct json_object *o;

	CHECK(dte_of("[900000, 1000000, 150000], [1000000, 1100000, 50000]", 0, 200000, 10000, d,
		     sizeof(d)) == CHECK_PASS);
	CHECK(strstr(d, "DTE accepted 200000 of 220000 samples (90.9%); 0 accepted rates over") &&
	      strstr(d, "(at most 4)") && strstr(d, "none under it: yes"));
	/* Buckets reaching past the bound count against it; 4 of 200,000 are allowed. */
	CHECK(dte_of("[900000, 1000000, 199996], [1300000, 1500000, 4]", 0, 200000, 10000, d,
		     sizeof(d)) == CHECK_PASS);
	CHECK(dte_of("[900000, 1000000, 199995], [1300000, 1500000, 5]", 0, 200000, 10000, d,
		     sizeof(d)) == CHECK_FAIL);
	CHECK(strstr(d, "5 accepted rates over") != NULL);
	CHECK(dte_of("[900000, 1000000, 199998]", 2, 200000, 10000, d, sizeof(d)) == CHECK_PASS);
	CHECK(dte_of("[900000, 1000000, 199995]", 5, 200000, 10000, d, sizeof(d)) == CHECK_FAIL);
	/* A period under the throttle; too few samples; no counter at all. */
	CHECK(dte_of("[900000, 1000000, 200000]", 0, 200000, 9990, d, sizeof(d)) == CHECK_FAIL);
	CHECK(strstr(d, "none under it: no") != NULL);
	CHECK(dte_of("[900000, 1000000, 999]", 0, 999, 10000, d, sizeof(d)) == CHECK_FAIL);
	o = json_tokener_parse("{\"tsc_hz\": 1000000000, \"counters\": []}");
	CHECK(check_dte(o, 1000, 10000, d, sizeof(d)) == CHECK_FAIL);
	CHECK(strstr(d, "no rates") != NULL);
	json_object_put(o);
}

static void rdpmc(void)
{
	char d[320];

	CHECK(check_rdpmc(3.05e9, 3.0e9, d, sizeof(d)) == CHECK_PASS);
	CHECK(strstr(d, "3.05e+09 instructions read by rdpmc") && strstr(d, "1.7% apart"));
	CHECK(check_rdpmc(3.31e9, 3.0e9, d, sizeof(d)) == CHECK_FAIL);
	CHECK(check_rdpmc(2.69e9, 3.0e9, d, sizeof(d)) == CHECK_FAIL);
	CHECK(check_rdpmc(3.0e9, 0, d, sizeof(d)) == CHECK_FAIL);
	CHECK(strstr(d, "nothing to compare") != NULL);
}

/* A module's strings, as modpost writes them: this test binary reads as a built module. */
static const char modinfo[] __attribute__((section(".modinfo"), used)) =
	"license=GPL\0author=shimtop\0vermagic=6.1.0-57-amd64 SMP preempt mod_unload "
	"modversions ";

static void module_vermagic(void)
{
	char magic[64], path[] = "/tmp/test_check_koXXXXXX";
	int fd = mkstemp(path);

	CHECK(check_module_vermagic("/proc/self/exe", magic, sizeof(magic)));
	CHECK(!strcmp(magic, "6.1.0-57-amd64"));
	/* Cut to what fits. */
	CHECK(check_module_vermagic("/proc/self/exe", magic, 6) && !strcmp(magic, "6.1.0"));
	/* Not an ELF file, an ELF file without the section, no file. */
	CHECK(fd >= 0 && write(fd, "vermagic=6.1.0 SMP\n", 19) == 19);
	close(fd);
	CHECK(!check_module_vermagic(path, magic, sizeof(magic)) && magic[0] == '\0');
	unlink(path);
	CHECK(!check_module_vermagic("/bin/sh", magic, sizeof(magic)));
	CHECK(!check_module_vermagic(path, magic, sizeof(magic)));
}

int main(void)
{
	sampling();
	chains();
	symbols();
	ipc();
	ibs_loads();
	module_vermagic();
	observer_period();
	dte();
	rdpmc();
	return check_done("test_check");
}
