// SPDX-License-Identifier: GPL-2.0
/*
 * user/lib/uprobedef.c: records as uprobe_events lines. Every operand kind,
 * the @+ translation on a file whose data segment has another vaddr - offset
 * than its text (a non-PIE python3.11's layout), SIB args dropped and named,
 * and the refusals.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "uprobedef.h"
#include "tap.h"

/* text at file 0x1000 = vaddr 0x401000; data at file 0x5000 = vaddr 0x806000 */
static struct pc_elf_info elf = {
	.is64 = true, .nsegs = 2,
	.segs = {
		{ .type = PC_PT_LOAD, .flags = PC_PF_R | PC_PF_X, .offset = 0x1000,
		  .vaddr = 0x401000, .filesz = 0x2000, .memsz = 0x2000 },
		{ .type = PC_PT_LOAD, .flags = PC_PF_R | PC_PF_W, .offset = 0x5000,
		  .vaddr = 0x806000, .filesz = 0x1000, .memsz = 0x1000 },
	},
};

static int def_flags(const char *record, unsigned int flags, char *buf, size_t size,
		     struct pc_uprobe_dropped *drop)
{
	struct pc_command cmd;
	struct pc_parse_error perr;
	int ret = pc_parse_command_mach(record, strlen(record), PC_MACH_X86_64, 16, &cmd, &perr);

	if (ret) {
		printf("# parse %s: %s: %s\n", record, perr.field, perr.why);
		return ret;
	}
	return pc_uprobe_def(&cmd.rec, &elf, flags, "/usr/bin/x", buf, size, drop);
}

static int def(const char *record, char *buf, size_t size, struct pc_uprobe_dropped *drop)
{
	return def_flags(record, 0, buf, size, drop);
}

static void same(const char *record, const char *want, const char *what)
{
	struct pc_uprobe_dropped drop;
	char buf[4096];
	int ret = def(record, buf, sizeof(buf), &drop);

	TAP_OK(ret == (int)strlen(want) && !strcmp(buf, want) && !drop.n,
	       "%s: '%s' (got %d '%s')", what, want, ret, ret > 0 ? buf : "");
}

#define ADD "add p:g/e 4f1e /usr/lib/y:0x1234 "

int main(void)
{
	struct pc_uprobe_dropped drop;
	char buf[4096];
	int ret;

	same("add p:g/e 4f1e /usr/lib/y:0x1234", "p:g/e /usr/bin/x:0x1234",
	     "no args: the kernel's path, the record's offset");
	same("add r:g/e 4f1e /y:0x1234 v=$retval:s32", "r:g/e /usr/bin/x:0x1234 v=$retval:s32",
	     "return probe");
	same("add p:g/e 4f1e /y:0x1234(0x5010)", "p:g/e /usr/bin/x:0x1234(0x5010)",
	     "semaphore");
	same(ADD "a=%di:u64 b=+8(+16(%sp)):s32 s=+0(%si):string c=\\-3:s8 h=%ax:x16",
	     "p:g/e /usr/bin/x:0x1234 a=%di:u64 b=+8(+16(%sp)):s32 s=+0(%si):string c=\\-3:s8 h=%ax:x16",
	     "registers, nested loads, strings, immediates and hex types as they were");
	same(ADD "v=@+0x1800:u32", "p:g/e /usr/bin/x:0x1234 v=@+0x1800:u32",
	     "@+ in the text's segment: unchanged");
	/* vaddr(0x5040) = 0x806040; vaddr(0x1234) - 0x1234 = 0x400000 */
	same(ADD "v=@+0x5040:u64", "p:g/e /usr/bin/x:0x1234 v=@+0x406040:u64",
	     "@+ in a segment with another vaddr - offset: vaddr(OFF) - (vaddr(probe) - probe)");
	same(ADD "v=+8(@+0x5040):u64", "p:g/e /usr/bin/x:0x1234 v=+8(@+0x406040):u64",
	     "... under a dereference too");

	ret = def(ADD "a=%di:u64 t=+8(%ax,%bx,4):s32 b=%si:u32", buf, sizeof(buf), &drop);
	TAP_OK(ret > 0 && !strcmp(buf, "p:g/e /usr/bin/x:0x1234 a=%di:u64 b=%si:u32") &&
	       drop.n == 1 && !strcmp(drop.names[0], "t") && strstr(drop.why[0], "index"),
	       "an index-register arg is dropped and named, the others kept (got '%s')", buf);
	ret = def_flags(ADD "a=%di:u64 v=@+0x5040:u64 w=+8(@+0x1800):u32", PC_UPROBE_NO_FILEOFF,
			buf, sizeof(buf), &drop);
	TAP_OK(ret > 0 && !strcmp(buf, "p:g/e /usr/bin/x:0x1234 a=%di:u64") && drop.n == 2 &&
	       !strcmp(drop.names[0], "v") && !strcmp(drop.names[1], "w") &&
	       strstr(drop.why[0], "before 6.1"),
	       "a kernel that fetches @+ wrong: every @+ arg dropped and named (got '%s')", buf);
	ret = def(ADD "v=@+0x9000:u64", buf, sizeof(buf), &drop);
	TAP_OK(ret == -ERANGE && drop.n == 1 && !strcmp(drop.names[0], "v"),
	       "@+ outside every PT_LOAD: ERANGE naming the arg (got %d)", ret);
	ret = def("add p:g/e 4f1e /y:0x9000 v=@+0x5040:u64", buf, sizeof(buf), &drop);
	TAP_OK(ret == -ERANGE, "@+ with the probe outside every PT_LOAD: ERANGE (got %d)", ret);
	ret = def(ADD "a=%di:u64", buf, 20, &drop);
	TAP_OK(ret == -ENOSPC, "a buffer too small: ENOSPC (got %d)", ret);
	ret = def(ADD "a=%di:u64", buf, 30, &drop);
	TAP_OK(ret == -ENOSPC, "a buffer too small for the args: ENOSPC (got %d)", ret);
	ret = pc_uprobe_undef("g", "e", buf, sizeof(buf));
	TAP_OK(ret == 5 && !strcmp(buf, "-:g/e"), "removal: -:GROUP/EVENT (got '%s')", buf);
	return tap_done();
}
