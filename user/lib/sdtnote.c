// SPDX-License-Identifier: GPL-2.0
/* ELF note walking, SDT v3 payload and build-id decoding over untrusted bytes. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sdtnote.h"

static uint32_t rd32(const uint8_t *p, bool be)
{
	return be ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
		  : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static uint64_t rd64(const uint8_t *p, bool be)
{
	uint64_t hi = rd32(p + (be ? 0 : 4), be), lo = rd32(p + (be ? 4 : 0), be);

	return hi << 32 | lo;
}

/* Round @v up to @a (a power of two) without wrapping; false on overflow. */
static bool align_up(size_t v, unsigned int a, size_t *out)
{
	if (v > SIZE_MAX - (a - 1))
		return false;
	*out = (v + a - 1) & ~(size_t)(a - 1);
	return true;
}

int pc_note_next(const void *buf, size_t len, size_t *pos, unsigned int align,
		 bool big_endian, struct pc_note *n, const char **why)
{
	const uint8_t *b = buf;
	size_t p = *pos, name_end, desc_end;

	if (align != 8)
		align = 4;
	if (p >= len)
		return 0;
	if (len - p < 12) {
		*why = "truncated note header";
		return -EINVAL;
	}
	n->namesz = rd32(b + p, big_endian);
	n->descsz = rd32(b + p + 4, big_endian);
	n->type = rd32(b + p + 8, big_endian);
	p += 12;
	if (n->namesz > len - p || !align_up(p + n->namesz, align, &name_end) ||
	    name_end > len || n->descsz > len - name_end) {
		*why = "note name or descriptor runs past the end of the notes";
		return -EINVAL;
	}
	n->name = (const char *)b + p;
	n->desc = b + name_end;
	desc_end = name_end + n->descsz;
	/* The last note's padding may be missing: clamp, never read past len. */
	if (!align_up(desc_end, align, &desc_end) || desc_end > len)
		desc_end = len;
	*pos = desc_end;
	return 1;
}

bool pc_note_is(const struct pc_note *n, const char *name)
{
	size_t l = strlen(name) + 1;

	return n->namesz == l && !memcmp(n->name, name, l);
}

/* Non-empty [A-Za-z0-9_]{1,PC_SDT_NAME_MAX}, NUL-terminated before @end. */
static const char *ident(const char *s, const char *end, const char **why, const char *what)
{
	const char *p = s;

	while (p < end && *p && (isalnum((unsigned char)*p) || *p == '_'))
		p++;
	if (p == end) {
		*why = what[0] == 'p' ? "provider not NUL-terminated" : "name not NUL-terminated";
		return NULL;
	}
	if (*p) {
		*why = what[0] == 'p' ? "provider has characters outside [A-Za-z0-9_]" :
					"name has characters outside [A-Za-z0-9_]";
		return NULL;
	}
	if (p == s || p - s > PC_SDT_NAME_MAX) {
		*why = p == s ? (what[0] == 'p' ? "empty provider" : "empty name")
			      : (what[0] == 'p' ? "provider too long" : "name too long");
		return NULL;
	}
	return p + 1;
}

int pc_sdtnote_parse(const uint8_t *desc, size_t len, bool is64, bool big_endian,
		     struct pc_sdtnote *out, const char **why)
{
	size_t asz = is64 ? 8 : 4;
	const char *s, *end = (const char *)desc + len, *p;

	if (len < 3 * asz + 2) {
		*why = "payload shorter than three addresses and two names";
		return -EINVAL;
	}
	out->pc = is64 ? rd64(desc, big_endian) : rd32(desc, big_endian);
	out->base = is64 ? rd64(desc + 8, big_endian) : rd32(desc + 4, big_endian);
	out->sem = is64 ? rd64(desc + 16, big_endian) : rd32(desc + 8, big_endian);
	s = (const char *)desc + 3 * asz;
	out->provider = s;
	s = ident(s, end, why, "provider");
	if (!s)
		return -EINVAL;
	out->name = s;
	s = ident(s, end, why, "name");
	if (!s)
		return -EINVAL;
	out->args = s < end ? s : "";
	for (p = out->args; s < end && p < end && *p; p++) {
		if (*p < 0x20 || *p > 0x7e) {
			*why = "args contain a non-printable byte";
			return -EINVAL;
		}
	}
	if (s < end && p == end) {
		*why = "args not NUL-terminated";
		return -EINVAL;
	}
	return 0;
}

int pc_build_id_hex(const struct pc_note *n, char hex[41], const char **why)
{
	if (n->descsz < 2 || n->descsz > 20) {
		*why = "build-id length outside 2..20 bytes";
		return -EINVAL;
	}
	for (uint32_t i = 0; i < n->descsz; i++)
		snprintf(hex + 2 * i, 3, "%02x", n->desc[i]);
	hex[2 * n->descsz] = '\0';
	return 0;
}
