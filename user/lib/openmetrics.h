/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Writing metrics in the Prometheus text exposition format, the one
 * node_exporter's textfile collector and `promtool check metrics` read,
 * ended by "# EOF" as OpenMetrics ends (a comment to those readers):
 * "# HELP" and "# TYPE" before each family, counters named *_total, label
 * values escaped.
 */
#ifndef _PC_OPENMETRICS_H
#define _PC_OPENMETRICS_H

#include <stdint.h>
#include <stdio.h>

/* "# HELP @name @help" and "# TYPE @name @type"; @help has no backslash or newline. */
void pc_om_family(FILE *f, const char *name, const char *type, const char *help);

/*
 * One sample line: @name{K1="V1",K2="V2"} @value. @labels holds @nlabels
 * pairs, keys and values in turn (keys are plain names, values escaped).
 */
void pc_om_sample(FILE *f, const char *name, const char *const *labels, size_t nlabels,
		  uint64_t value);
/* The same with a finite @value that need not be whole (seconds), as "%.9g" prints it. */
void pc_om_sample_double(FILE *f, const char *name, const char *const *labels, size_t nlabels,
			 double value);

/*
 * @v as the text of a label value: backslash, double quote and newline
 * escaped as the format says (\\, \", \n); a byte that is not part of valid
 * UTF-8, and any other control character, written as the four characters
 * \xHH (its backslash escaped), so that any path gives a valid file.
 */
void pc_om_value(FILE *f, const char *v);

/* The length of the valid UTF-8 sequence starting at @s (1 to 4), else 0. */
size_t pc_utf8_len(const unsigned char *s);

#endif /* _PC_OPENMETRICS_H */
