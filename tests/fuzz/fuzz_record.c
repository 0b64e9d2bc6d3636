// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the control-line parser. The input is one line.
 * Besides memory safety (ASan/UBSan), it checks what the module relies on:
 * a rejection always names a field, a static reason and a column inside
 * the line (or one past it); an accepted line contains no control byte,
 * its path lies inside the line, and the record rebuilt from the parsed
 * fields parses back to the same fields (args via pc_format_args).
 * Every input is parsed with each machine's register names (x86-64, aarch64).
 */
#include <stdio.h>
#include <stdlib.h>

#include "record.h"
#include "../unit/record_eq.h"
#include "fuzz_check.h"

static struct pc_command cmd, cmd2;
static char fmt[PROBECACHE_LINE_MAX * 2], line2[PROBECACHE_LINE_MAX * 4];

static void check_error(int ret, const struct pc_parse_error *err, size_t size)
{
	CHECK(ret == -EINVAL || ret == -E2BIG || ret == -ENAMETOOLONG);
	CHECK(err->field && err->why && err->field[0] && err->why[0]);
	CHECK(err->column >= 1 && err->column <= size + 1);
}


/* The whole record, rebuilt in canonical syntax from its parsed fields. */
static size_t rebuild(const struct pc_record *r)
{
	size_t n;
	int i;

	n = (size_t)snprintf(line2, sizeof(line2), "add %c:%s/%s ", r->retprobe ? 'r' : 'p',
			     r->group, r->event);
	for (i = 0; i < r->build_id_len; i++)
		n += (size_t)snprintf(line2 + n, sizeof(line2) - n, "%02x", r->build_id[i]);
	n += (size_t)snprintf(line2 + n, sizeof(line2) - n, " %.*s:0x%llx", (int)r->path_len,
			      r->path, (unsigned long long)r->offset);
	if (r->ref_ctr_offset)
		n += (size_t)snprintf(line2 + n, sizeof(line2) - n, "(0x%llx)",
				      (unsigned long long)r->ref_ctr_offset);
	if (r->pid)
		n += (size_t)snprintf(line2 + n, sizeof(line2) - n, " pid=%d", r->pid);
	if (r->nargs)
		n += (size_t)snprintf(line2 + n, sizeof(line2) - n, " %s", fmt);
	CHECK(n < sizeof(line2));
	return n;
}

static void check_record(const char *line, size_t size, const struct pc_record *r,
			 enum pc_mach mach)
{
	struct pc_parse_error err;
	unsigned int i;
	size_t n;
	int ret;

	CHECK(r->path >= line && r->path + r->path_len <= line + size && r->path[0] == '/');
	CHECK(r->build_id_len >= 1 && r->build_id_len <= PROBECACHE_BUILD_ID_MAX);
	CHECK(r->nargs <= PROBECACHE_MAX_ARGS && r->pid >= 0);
	ret = pc_format_args(r, fmt, sizeof(fmt));
	CHECK(ret >= 0 && (size_t)ret == strlen(fmt));
	n = rebuild(r);
	ret = pc_parse_command_mach(line2, n, mach, PROBECACHE_MAX_ARGS, &cmd2, &err);
	if (ret)
		fprintf(stderr, "reparse of '%s' failed: col %u %s: %s\n", line2, err.column,
			err.field, err.why);
	CHECK(!ret && cmd2.cmd == PC_CMD_ADD);
	CHECK(cmd2.rec.mach == mach && r->mach == mach);
	CHECK(cmd2.rec.retprobe == r->retprobe && !strcmp(cmd2.rec.group, r->group) &&
	      !strcmp(cmd2.rec.event, r->event) && cmd2.rec.build_id_len == r->build_id_len &&
	      !memcmp(cmd2.rec.build_id, r->build_id, r->build_id_len) &&
	      cmd2.rec.path_len == r->path_len &&
	      !memcmp(cmd2.rec.path, r->path, r->path_len) && cmd2.rec.offset == r->offset &&
	      cmd2.rec.ref_ctr_offset == r->ref_ctr_offset && cmd2.rec.pid == r->pid &&
	      cmd2.rec.nargs == r->nargs);
	for (i = 0; i < r->nargs; i++)
		CHECK(arg_eq(&cmd2.rec.args[i], &r->args[i]));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void one_machine(const char *line, size_t size, enum pc_mach mach)
{
	struct pc_parse_error err;
	size_t i;
	int ret;

	ret = pc_parse_command_mach(line, size, mach, PROBECACHE_MAX_ARGS, &cmd, &err);
	if (ret) {
		check_error(ret, &err, size);
		return;
	}
	for (i = 0; i < size; i++)
		CHECK((unsigned char)line[i] >= 0x20 && line[i] != 0x7f);
	if (cmd.cmd == PC_CMD_ADD) {
		check_record(line, size, &cmd.rec, mach);
		/* One arg fewer allowed than given: must be refused, not truncated. */
		if (cmd.rec.nargs) {
			ret = pc_parse_command_mach(line, size, mach, cmd.rec.nargs - 1u, &cmd2,
						    &err);
			CHECK(ret == -E2BIG);
		}
	} else if (cmd.cmd == PC_CMD_DEL) {
		CHECK(cmd.group[0] && cmd.event[0]);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	one_machine((const char *)data, size, PC_MACH_X86_64);
	one_machine((const char *)data, size, PC_MACH_AARCH64);
	return 0;
}
