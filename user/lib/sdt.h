/* SPDX-License-Identifier: GPL-2.0 */
/* SDT (.note.stapsdt) reading and x86-64 / aarch64 argument translation. */
#ifndef _PC_SDT_H
#define _PC_SDT_H

#include <stddef.h>
#include <stdint.h>

/*
 * One .note.stapsdt note, already translated to file offsets.
 *
 * Notes come in note order. Several notes may share provider:name (postgres
 * has 3 lwlock__wait__start). perf 6.1 `probe -D` prints every location
 * under the same EVENT when the kernel's uprobe_events can append probes
 * to an event (tracefs README says "Create/append": Linux >= 5.5, so 6.1
 * and 6.12); on older kernels it names them EVENT, EVENT_1, EVENT_2, ...
 * in the order of its strlist, i.e. its synthesized "p:..." lines sorted
 * with strcmp. probecache needs one GROUP:EVENT per location, so the cache
 * (user/cmd/scan.c) names them EVENT, EVENT_1, EVENT_2, ... in note order, and
 * tests/sdt/run.sh maps EVENT_n back to EVENT when comparing with perf -D.
 *
 * rec_args and uprobe_args hold "arg1=... arg2=..." without a leading blank.
 * Args are numbered by position in the note; an arg that is left out leaves
 * a gap (perf numbers the same way). For machine != EM_X86_64, rec_args use
 * that machine's register names (aarch64: %x0, +8(%sp)): they are listed,
 * and the x86-64 module refuses them.
 */
struct pc_sdt_note {
	char *provider;
	char *name;
	uint64_t pc_off;	/* file offset of the probe's nop (after .stapsdt.base adjustment) */
	uint64_t sem_off;	/* file offset of the semaphore, 0 if none */
	char *argstr;		/* raw note argument string, e.g. "-4@%edi 8@-24(%rbp)" */
	char *rec_args;		/* record syntax, every arg: "arg1=%di:s32 arg2=+8(%sp):u64" */
	char *uprobe_args;	/* ftrace uprobe_events syntax as perf writes it; perf-unexpressible args dropped */
	unsigned int nwarn;	/* args that could not be translated at all (warned on stderr) */
	unsigned int nargs;	/* args in the note, translated or not */
};

struct pc_sdt_file {
	char build_id[2 * 20 + 1];	/* hex, "" if none */
	uint16_t machine;		/* EM_X86_64, EM_AARCH64, ... */
	int is64;
	size_t nnotes;
	struct pc_sdt_note *notes;
	unsigned int nskipped;		/* malformed notes warned about and left out */
};

/*
 * Read build-id and SDT notes of @path. Returns 0 or -errno; messages name @path.
 * Symbols of rip-relative/absolute operands come from .symtab/.dynsym, else
 * from $PROBECACHE_DEBUG_ROOT (default /usr/lib/debug)/.build-id/xx/yyyy.debug.
 * Malformed notes and untranslatable args are warned about and left out
 * (nskipped, nwarn); only an unreadable file fails.
 */
int pc_sdt_read(const char *path, struct pc_sdt_file *out);
void pc_sdt_free(struct pc_sdt_file *f);

/* Read only the GNU build-id of @path as hex into @hex (41 bytes). 0 or -errno. */
int pc_read_build_id(const char *path, char hex[41]);
/*
 * The same through @fd, a regular file the caller opened and keeps (e.g.
 * /proc/PID/map_files/START-END), @name in messages. 0, -ENOENT (no
 * build-id note), or -errno.
 */
int pc_read_build_id_fd(int fd, const char *name, char hex[41]);

#endif /* _PC_SDT_H */
