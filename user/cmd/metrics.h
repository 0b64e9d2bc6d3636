/* SPDX-License-Identifier: GPL-2.0 */
/* status --format=openmetrics (metrics.c), called by status.c. */
#ifndef _PC_METRICS_H
#define _PC_METRICS_H

/*
 * The module's probes, their sites and the kernel's own hit counts as
 * metrics, to @output (written atomically: a temporary file beside it,
 * renamed over it) or to stdout when NULL. No module loaded is not an
 * error: the metrics say so. 0, or -errno (reported).
 */
int pc_status_openmetrics(const char *output);

#endif /* _PC_METRICS_H */
