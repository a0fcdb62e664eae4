/*
 * symbols_bpf.c - the kernel's BPF programs named without /proc/kallsyms:
 * their JIT images listed by the bpf system call, as bpftool does.  A
 * sample in one (shimtop's own wakers' programs run in the target's
 * interrupts) lies past the saved copy of kallsyms, and the kernel takes
 * 70 ms to list it all again; this costs a few system calls a program.
 */
#include "symbols/symbols_internal.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Programs listed at most, and images (a program and its functions) of each. */
#define BPF_PROGRAMS_MAX	4096
#define BPF_IMAGES_MAX		64

/* The function of func whose name kallsyms gives an image: its BTF name, else the program's. */
static const char *function_name(const struct btf *btf, const struct bpf_func_info *func,
				 const char *program)
{
	const struct btf_type *type = btf && func ? btf__type_by_id(btf, func->type_id) : NULL;
	const char *name = type ? btf__name_by_offset(btf, type->name_off) : NULL;

	return name && *name ? name : program;
}

/*
 * prog's images (the program, then its functions: each its own tag) into
 * t, named as kallsyms names them, bpf_prog_TAG_FUNCTION, in [bpf].
 */
static void add_program(struct range_table *t, int fd)
{
	struct bpf_prog_info info;
	__u64 addrs[BPF_IMAGES_MAX];
	__u32 lens[BPF_IMAGES_MAX], len = sizeof(info), n, nfuncs;
	__u8 tags[BPF_IMAGES_MAX][BPF_TAG_SIZE], tag[BPF_TAG_SIZE];
	struct bpf_func_info funcs[BPF_IMAGES_MAX];
	char program[BPF_OBJ_NAME_LEN], name[256];
	struct btf *btf = NULL;

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len) != 0 || !info.nr_jited_ksyms)
		return;
	n = info.nr_jited_ksyms < BPF_IMAGES_MAX ? info.nr_jited_ksyms : BPF_IMAGES_MAX;
	/* A function's information for each image, or none (a program built without BTF). */
	nfuncs = info.nr_func_info == info.nr_jited_ksyms ? n : 0;
	memcpy(tag, info.tag, sizeof(tag));
	memcpy(program, info.name, sizeof(program));
	program[sizeof(program) - 1] = '\0';
	if (nfuncs && info.btf_id)
		btf = btf__load_from_kernel_by_id(info.btf_id);
	memset(&info, 0, sizeof(info));
	info.nr_jited_ksyms = n;
	info.jited_ksyms = (__u64)(uintptr_t)addrs;
	info.nr_jited_func_lens = n;
	info.jited_func_lens = (__u64)(uintptr_t)lens;
	info.nr_prog_tags = n;
	info.prog_tags = (__u64)(uintptr_t)tags;
	info.nr_func_info = nfuncs;
	info.func_info_rec_size = sizeof(funcs[0]);
	info.func_info = (__u64)(uintptr_t)funcs;
	len = sizeof(info);
	if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0) {
		for (__u32 i = 0; i < n && i < info.nr_jited_ksyms && i < info.nr_jited_func_lens &&
				  i < info.nr_prog_tags; i++) {
			size_t at = (size_t)snprintf(name, sizeof(name), "bpf_prog_");
			/* The program's own (its first instruction's) goes by the program's tag. */
			const __u8 *its = (nfuncs ? funcs[i].insn_off == 0 : i == 0) ? tag : tags[i];

			if (!addrs[i] || !lens[i] || addrs[i] > UINT64_MAX - lens[i])
				continue;
			for (size_t k = 0; k < BPF_TAG_SIZE; k++)
				at += (size_t)snprintf(name + at, sizeof(name) - at, "%02x", its[k]);
			snprintf(name + at, sizeof(name) - at, "_%s",
				 function_name(btf, i < nfuncs && i < info.nr_func_info ? &funcs[i] : NULL,
					       program));
			range_table_add(t, addrs[i], addrs[i] + lens[i], name, "bpf");
		}
	}
	btf__free(btf);
}

void bpf_symbols_load(struct range_table *t)
{
	__u32 id = 0;

	range_table_clear(t);
	for (size_t i = 0; i < BPF_PROGRAMS_MAX && bpf_prog_get_next_id(id, &id) == 0; i++) {
		int fd = bpf_prog_get_fd_by_id(id);

		if (fd < 0)
			continue;	/* gone since, or not ours to see */
		add_program(t, fd);
		close(fd);
	}
	range_table_finish(t);
}
