// SPDX-License-Identifier: GPL-2.0
/* Writing the Prometheus text exposition format: see openmetrics.h. */
#include <inttypes.h>
#include <stdbool.h>

#include "openmetrics.h"

void pc_om_family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static bool cont(unsigned char c)
{
	return c >= 0x80 && c <= 0xbf;
}

/* Unicode's table of well-formed sequences: no overlong form, surrogate or past U+10FFFF. */
size_t pc_utf8_len(const unsigned char *s)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t n;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (!cont(s[i]))
			return 0;
	return n;
}

void pc_om_value(FILE *f, const char *v)
{
	const unsigned char *s = (const unsigned char *)v;
	size_t n;

	while (*s) {
		n = pc_utf8_len(s);
		if (*s == '\\' || *s == '"') {
			fprintf(f, "\\%c", *s);
		} else if (*s == '\n') {
			fputs("\\n", f);
		} else if (!n || *s < 0x20 || *s == 0x7f) {
			fprintf(f, "\\\\x%02x", *s);
			n = 1;
		} else {
			fwrite(s, 1, n, f);
		}
		s += n;
	}
}

/* A sample's name and labels, up to the blank before its value. */
static void series(FILE *f, const char *name, const char *const *labels, size_t nlabels)
{
	fputs(name, f);
	for (size_t i = 0; i < nlabels; i++) {
		fprintf(f, "%c%s=\"", i ? ',' : '{', labels[2 * i]);
		pc_om_value(f, labels[2 * i + 1]);
		fputc('"', f);
	}
	fprintf(f, "%s ", nlabels ? "}" : "");
}

void pc_om_sample(FILE *f, const char *name, const char *const *labels, size_t nlabels,
		  uint64_t value)
{
	series(f, name, labels, nlabels);
	fprintf(f, "%" PRIu64 "\n", value);
}

void pc_om_sample_double(FILE *f, const char *name, const char *const *labels, size_t nlabels,
			 double value)
{
	series(f, name, labels, nlabels);
	fprintf(f, "%.9g\n", value);
}
