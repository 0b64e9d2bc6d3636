// SPDX-License-Identifier: GPL-2.0
/*
 * Arg-spec table: every x86-64, i386 and aarch64 operand form, valid and
 * invalid; each case checks the record FETCHARG (or the refusal) and what
 * perf 6.1 writes for the same spec.
 */
#include <errno.h>
#include <string.h>

#include "argspec.h"
#include "tap.h"

#define X64	PC_ARGSPEC_X86_64
#define I386	PC_ARGSPEC_I386
#define A64	PC_ARGSPEC_AARCH64
#define PPC64	21

struct tcase {
	uint16_t machine;
	bool fixed;		/* ET_EXEC */
	const char *spec;
	int ret;		/* of parse, then record */
	const char *rec;	/* expected record FETCHARG:TYPE when ret == 0 */
	const char *perf;	/* perf's " argN=..." without the leading blank, "" if dropped */
};

/* Fake binary: .data at 0x1000..0x9000 loads from file offset 0. */
static int fake_sym(void *priv, const char *name, uint64_t *v)
{
	(void)priv;
	if (!strcmp(name, "fx_counter") || !strcmp(name, "fx.local.1")) {
		*v = 0x4010;
		return 0;
	}
	return !strcmp(name, "dup.0") ? -EEXIST : -ENOENT;
}

static int fake_off(void *priv, uint64_t v, uint64_t *off)
{
	(void)priv;
	if (v < 0x1000 || v >= 0x9000)
		return -ERANGE;
	*off = v - 0x1000;
	return 0;
}

static const struct tcase cases[] = {
	/* x86-64 registers of every width */
	{ X64, 0, "8@%rax", 0, "%ax:u64", "arg1=%ax:u64" },
	{ X64, 0, "-4@%edi", 0, "%di:s32", "arg1=%di:s32" },
	{ X64, 0, "2@%ax", 0, "%ax:u16", "arg1=%ax:u16" },
	{ X64, 0, "1@%al", 0, "%ax:u8", "arg1=%ax:u8" },
	{ X64, 0, "-1@%sil", 0, "%si:s8", "arg1=%si:s8" },
	{ X64, 0, "1@%dil", 0, "%di:u8", "arg1=%di:u8" },
	{ X64, 0, "1@%bpl", 0, "%bp:u8", "arg1=%bp:u8" },
	{ X64, 0, "1@%spl", 0, "%sp:u8", "arg1=%sp:u8" },
	{ X64, 0, "8@%rsp", 0, "%sp:u64", "arg1=%sp:u64" },
	{ X64, 0, "4@%esp", 0, "%sp:u32", "arg1=%sp:u32" },
	{ X64, 0, "8@%rbp", 0, "%bp:u64", "arg1=%bp:u64" },
	{ X64, 0, "-2@%dx", 0, "%dx:s16", "arg1=%dx:s16" },
	{ X64, 0, "8@%r8", 0, "%r8:u64", "arg1=%r8:u64" },
	{ X64, 0, "-4@%r9d", 0, "%r9:s32", "arg1=%r9:s32" },
	{ X64, 0, "2@%r10w", 0, "%r10:u16", "arg1=%r10:u16" },
	{ X64, 0, "-1@%r15b", 0, "%r15:s8", "arg1=%r15:s8" },
	/* perf reads %ah as the low byte of %ax; we refuse it */
	{ X64, 0, "1@%ah", -EOPNOTSUPP, NULL, "arg1=%ax:u8" },
	{ X64, 0, "-1@%dh", -EOPNOTSUPP, NULL, "arg1=%dx:s8" },
	{ X64, 0, "8@%rip", -EINVAL, NULL, "arg1=%rip:u64" },
	{ X64, 0, "8@%xmm0", -EOPNOTSUPP, NULL, "arg1=%xmm0:u64" },
	{ X64, 0, "8@%rax)", -EINVAL, NULL, "arg1=%ax):u64" },
	/* register + displacement */
	{ X64, 0, "-8@-24(%rbp)", 0, "-24(%bp):s64", "arg1=-24(%bp):s64" },
	{ X64, 0, "8@(%rdi)", 0, "+0(%di):u64", "arg1=+0(%di):u64" },
	{ X64, 0, "4@16(%rsi)", 0, "+16(%si):u32", "arg1=+16(%si):u32" },
	{ X64, 0, "4@+16(%rsi)", 0, "+16(%si):u32", "arg1=+16(%si):u32" },
	{ X64, 0, "-2@-2(%r12)", 0, "-2(%r12):s16", "arg1=-2(%r12):s16" },
	{ X64, 0, "4@0x10(%rsi)", 0, "+16(%si):u32", "" },
	{ X64, 0, "8@-0x8(%r15)", 0, "-8(%r15):u64", "" },
	{ X64, 0, "8@(%rax", -EINVAL, NULL, "arg1=+0(%ax:u64" },
	{ X64, 0, "8@(%eax)", -EOPNOTSUPP, NULL, "arg1=+0(%ax):u64" },
	{ X64, 0, "8@99999999999999999999(%rax)", -EINVAL, NULL,
	  "arg1=+99999999999999999999(%ax):u64" },
	/* SIB */
	{ X64, 0, "8@24(%rsp,%rcx,8)", 0, "+24(%sp,%cx,8):u64", "" },
	{ X64, 0, "-8@(%rbx,%rsi)", 0, "+0(%bx,%si,1):s64", "" },
	{ X64, 0, "4@-4(%rax,%rdx,2)", 0, "-4(%ax,%dx,2):u32", "" },
	{ X64, 0, "4@(,%rdx,1)", 0, "+0(,%dx,1):u32", "" },
	{ X64, 0, "8@-8(,%r9,2)", 0, "-8(,%r9,2):u64", "" },
	{ X64, 0, "4@(,%rdx,4)", 0, "+0(,%dx,4):u32", "" },
	{ X64, 0, "8@24(%rax,%rsp,2)", -EINVAL, NULL, "" },
	{ X64, 0, "8@(%rax,%rbx,3)", -EINVAL, NULL, "" },
	{ X64, 0, "8@()", -EINVAL, NULL, "" },
	/* rip-relative and absolute symbols */
	{ X64, 0, "4@fx_counter(%rip)", 0, "@+0x3010:u32", "" },
	{ X64, 0, "8@fx_counter+8(%rip)", 0, "@+0x3018:u64", "" },
	{ X64, 0, "8@8+fx_counter(%rip)", 0, "@+0x3018:u64", "" },
	{ X64, 0, "-8@fx_counter-16(%rip)", 0, "@+0x3000:s64", "" },
	{ X64, 0, "4@fx.local.1(%rip)", 0, "@+0x3010:u32", "" },
	{ X64, 0, "4@nosym(%rip)", -ENOENT, NULL, "" },
	{ X64, 0, "4@dup.0(%rip)", -EEXIST, NULL, "" },
	{ X64, 0, "4@fx_counter+0x10000(%rip)", -ERANGE, NULL, "" },
	{ X64, 0, "4@16(%rip)", 0, "+16(%ip):u32", "arg1=+16(%rip):u32" },
	{ X64, 0, "-4@-8(%rip)", 0, "-8(%ip):s32", "arg1=-8(%rip):s32" },
	{ X64, 0, "8@a+b(%rip)", -EOPNOTSUPP, NULL, "" },
	{ X64, 0, "8@-fx_counter(%rip)", -EOPNOTSUPP, NULL, "" },
	{ X64, 0, "8@fx_counter@GOTPCREL(%rip)", -EOPNOTSUPP, NULL, "" },
	{ X64, 0, "8@fx_counter", 0, "@+0x3010:u64", "" },
	{ X64, 0, "8@4096", -EOPNOTSUPP, NULL, "" },
	{ X64, 1, "8@4096", 0, "@+0x0:u64", "" },
	{ X64, 1, "8@fx_counter(%rax)", 0, "+16400(%ax):u64", "" },
	{ X64, 0, "8@fx_counter(%rax)", -EOPNOTSUPP, NULL, "" },
	{ X64, 1, "8@fx_counter(,%rax,1)", 0, "+16400(,%ax,1):u64", "" },
	{ X64, 1, "8@fx_counter(,%rax,8)", 0, "+16400(,%ax,8):u64", "" },
	{ X64, 0, "8@%fs:0x28", -EOPNOTSUPP, NULL, "" },
	/* immediates */
	{ X64, 0, "-4@$-1", 0, "\\-1:s32", "" },
	{ X64, 0, "8@$0x10", 0, "\\16:u64", "" },
	{ X64, 0, "4@$42", 0, "\\42:u32", "" },
	{ X64, 0, "-8@$-9223372036854775808", 0, "\\-9223372036854775808:s64", "" },
	{ X64, 0, "8@$9223372036854775808", -EINVAL, NULL, "" },
	{ X64, 0, "8@$fx_counter", -EOPNOTSUPP, NULL, "" },
	{ X64, 0, "8@$", -EINVAL, NULL, "" },
	/* sizes */
	{ X64, 0, "%rdi", 0, "%di:u64", "arg1=%di" },
	{ X64, 0, "%esi", 0, "%si:u32", "arg1=%si" },
	{ X64, 0, "%r9w", 0, "%r9:u16", "arg1=%r9" },
	{ X64, 0, "$5", 0, "\\5:u64", "" },
	{ X64, 0, "(%rax)", 0, "+0(%ax):u64", "arg1=+0(%ax)" },
	{ X64, 0, "3@%rax", -EINVAL, NULL, "arg1=%ax" },
	{ X64, 0, "0@%rax", -EINVAL, NULL, "arg1=%ax" },
	{ X64, 0, "x@%rax", -EINVAL, NULL, "arg1=%ax" },
	{ X64, 0, "8@", -EINVAL, NULL, "" },
	{ X64, 0, "", -EINVAL, NULL, "" },
	/* i386 */
	{ I386, 1, "-4@%eax", 0, "%ax:s32", "arg1=%ax:s32" },
	{ I386, 1, "2@%si", 0, "%si:u16", "arg1=%si:u16" },
	{ I386, 1, "4@8(%esp)", 0, "+8(%sp):u32", "arg1=+8(%sp):u32" },
	{ I386, 1, "2@(%ebx,%ecx,4)", 0, "+0(%bx,%cx,4):u16", "" },
	{ I386, 1, "-4@fx_counter", 0, "@+0x3010:s32", "" },
	{ I386, 1, "4@fx_counter(%eax)", 0, "+16400(%ax):u32", "" },
	{ I386, 1, "8@%rax", -EINVAL, NULL, "arg1=%ax:u64" },
	{ I386, 1, "4@%r8d", -EINVAL, NULL, "arg1=%r8:u32" },
	{ I386, 1, "1@%sil", -EINVAL, NULL, "arg1=%si:u8" },
	{ I386, 1, "4@(%rax)", -EINVAL, NULL, "arg1=+0(%ax):u32" },
	{ I386, 1, "4@(%ax)", -EOPNOTSUPP, NULL, "arg1=+0(%ax):u32" },
	{ I386, 1, "4@8(%eip)", -EINVAL, NULL, "arg1=+8(%eip):u32" },
	/* aarch64 */
	{ A64, 0, "-4@x0", 0, "%x0:s32", "arg1=%x0:s32" },
	{ A64, 0, "8@x29", 0, "%x29:u64", "arg1=%x29:u64" },
	{ A64, 0, "8@x30", 0, "%x30:u64", "" },
	{ A64, 0, "-4@w1", 0, "%x1:s32", "" },
	{ A64, 0, "w2", 0, "%x2:u32", "" },
	{ A64, 0, "8@sp", 0, "%sp:u64", "" },
	{ A64, 0, "8@[x0]", 0, "+0(%x0):u64", "" },
	{ A64, 0, "-4@[sp, 12]", 0, "+12(%sp):s32", "arg1=+12(%sp):s32" },
	{ A64, 0, "8@[sp]", 0, "+0(%sp):u64", "arg1=+0(%sp):u64" },
	{ A64, 0, "8@[x1, 8]", 0, "+8(%x1):u64", "" },
	{ A64, 0, "8@[x1, #-16]", 0, "-16(%x1):u64", "" },
	{ A64, 0, "8@[x1,#8]", 0, "+8(%x1):u64", "" },
	{ A64, 0, "8@[x1, x2]", 0, "+0(%x1,%x2,1):u64", "" },
	{ A64, 0, "8@[x1, x2, lsl #3]", 0, "+0(%x1,%x2,8):u64", "" },
	{ A64, 0, "4@[x5, x6, lsl 2]", 0, "+0(%x5,%x6,4):u32", "" },
	{ A64, 0, "-4@5", 0, "\\5:s32", "" },
	{ A64, 0, "8@#42", 0, "\\42:u64", "" },
	{ A64, 0, "8@xzr", 0, "\\0:u64", "" },
	{ A64, 0, "8@30", 0, "\\30:u64", "arg1=%30:u64" },
	{ A64, 0, "8@x31", -EINVAL, NULL, "" },
	{ A64, 0, "8@v0", -EINVAL, NULL, "" },
	{ A64, 0, "8@[x0, #8]!", -EINVAL, NULL, "" },
	{ A64, 0, "8@[x0, w1]", -EOPNOTSUPP, NULL, "" },
	{ A64, 0, "8@[w0]", -EOPNOTSUPP, NULL, "" },
	{ A64, 0, "8@[x1, x2, lsl #4]", -EINVAL, NULL, "" },
	{ A64, 0, "8@[x0", -EINVAL, NULL, "" },
	/* other machines: parsed by nobody, perf drops them too */
	{ PPC64, 0, "8@%r3", -EOPNOTSUPP, NULL, "" },
};

static void run_case(const struct tcase *c)
{
	const struct pc_argctx ctx = { fake_sym, fake_off, NULL, c->fixed, 8 };
	struct pc_argspec a;
	const char *why = "";
	char rec[256] = "", perf[512];
	int ret, pret;

	ret = pc_argspec_parse(c->spec, c->machine, &a, &why);
	if (!ret)
		ret = pc_argspec_record(&a, &ctx, rec, sizeof(rec), &why);
	if (c->ret)
		TAP_OK(ret == c->ret && *why, "%u '%s' refused (%d): %s", c->machine, c->spec, ret,
		       why);
	else
		TAP_OK(!ret && !strcmp(rec, c->rec), "%u '%s' -> '%s' (got '%s' %d %s)",
		       c->machine, c->spec, c->rec, rec, ret, why);
	pret = pc_argspec_perf(c->spec, c->machine, perf, sizeof(perf));
	TAP_OK(!pret && !strcmp(perf + (perf[0] == ' '), c->perf), "%u '%s' perf '%s' (got '%s')",
	       c->machine, c->spec, c->perf, perf);
}

/* Whole argument strings through perf's splitting and numbering. */
static void perf_strings(void)
{
	static const struct { uint16_t m; const char *in, *out; int ret; } t[] = {
		{ X64, "8@%rdi -4@$1 8@(%rsi)", " arg1=%di:u64 arg3=+0(%si):u64", 0 },
		{ X64, "  -4@%eax\t2@%bx  ", " arg1=%ax:s32 arg2=%bx:u16", 0 },
		{ X64, "", "", 0 },
		{ X64, ":8@%rdi", "", 0 },
		{ X64, "8@%rdi 16@%rsi", "", -EINVAL },
		{ X64, "8@%rdi -9@%rsi", "", -EINVAL },
		{ A64, "8@[x1, 8] -4@x2", " arg3=%x2:s32", 0 },
		{ A64, "-4@[sp, 12] -4@[sp, 8] 8@x0",
		  " arg1=+12(%sp):s32 arg2=+8(%sp):s32 arg3=%x0:u64", 0 },
		{ A64, "-4@[sp,", "", 0 },
	};
	char buf[256];
	int ret;

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		ret = pc_argspec_perf(t[i].in, t[i].m, buf, sizeof(buf));
		TAP_OK(ret == t[i].ret && (ret || !strcmp(buf, t[i].out)),
		       "perf args of '%s' -> '%s' %d (got '%s' %d)", t[i].in, t[i].out, t[i].ret,
		       buf, ret);
	}
	ret = pc_argspec_perf("8@%rdi 8@%rsi", X64, buf, 12);
	TAP_OK(ret == -ENOSPC && strlen(buf) < 12, "perf args: short buffer -> -ENOSPC");
}

static int collect(const char *spec, unsigned int idx, void *priv)
{
	char *out = priv;

	snprintf(out + strlen(out), 256 - strlen(out), "%u<%s>", idx, spec);
	return 0;
}

static void split(void)
{
	char out[256] = "", big[400];
	int ret;

	ret = pc_argspec_split(" -4@[sp, 12]  8@x0\t-8@[x1, x2, lsl #3] ", collect, out);
	TAP_OK(!ret && !strcmp(out, "0<-4@[sp, 12]>1<8@x0>2<-8@[x1, x2, lsl #3]>"),
	       "split keeps [...] together: %s", out);
	out[0] = '\0';
	ret = pc_argspec_split("", collect, out);
	TAP_OK(!ret && !out[0], "split of empty string calls nothing");
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	TAP_OK(pc_argspec_split(big, collect, out) == -E2BIG, "split refuses a 399-byte spec");
}

static void record_small_buffer(void)
{
	const struct pc_argctx ctx = { fake_sym, fake_off, NULL, false, 8 };
	struct pc_argspec a;
	const char *why;
	char buf[6];
	int ret;

	ret = pc_argspec_parse("8@24(%rsp,%rcx,8)", X64, &a, &why);
	if (!ret)
		ret = pc_argspec_record(&a, &ctx, buf, sizeof(buf), &why);
	TAP_OK(ret == -ENOSPC && strlen(buf) < sizeof(buf), "record: short buffer -> -ENOSPC");
}

int main(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i]);
	perf_strings();
	split();
	record_small_buffer();
	return tap_done();
}
