/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoint probecache:probecache_hit, emitted for every hit while it is
 * enabled. Not a bare "hit": raw tracepoint and BTF names (btf_trace_NAME)
 * share one namespace across the kernel and every module.
 * args holds the raw fetched values (string args: their address), text
 * the same args formatted as "name=value ...".
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM probecache

#if !defined(_PC_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _PC_TRACE_H

#include <linux/sched.h>
#include <linux/tracepoint.h>

TRACE_EVENT(probecache_hit,
	TP_PROTO(const char *probe, unsigned long ip, unsigned int nargs,
		 const u64 *vals, const char *text),
	TP_ARGS(probe, ip, nargs, vals, text),

	TP_STRUCT__entry(
		__string(probe, probe)
		__field(pid_t, pid)
		__field(unsigned long, ip)
		__field(unsigned int, nargs)
		__dynamic_array(u64, args, nargs)
		__string(text, text)
	),

	TP_fast_assign(
		pc_assign_str(probe, probe);
		__entry->pid = current->tgid;
		__entry->ip = ip;
		__entry->nargs = nargs;
		memcpy(__get_dynamic_array(args), vals, nargs * sizeof(u64));
		pc_assign_str(text, text);
	),

	TP_printk("%s pid=%d ip=0x%lx %s", __get_str(probe), __entry->pid,
		  __entry->ip, __get_str(text))
);

#endif /* _PC_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
