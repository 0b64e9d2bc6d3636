/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Lets the parsers that the module uses (record.c, elfnote.c) compile
 * unchanged in user space, where they are unit-tested and fuzzed.
 */
#ifndef _PC_TYPES_H
#define _PC_TYPES_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/limits.h>
#include <linux/kernel.h>		/* ARRAY_SIZE, static_assert */
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <errno.h>
#include <limits.h>
#include <assert.h>			/* static_assert */
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif
#endif

#include <linux/probecache.h>

#endif /* _PC_TYPES_H */
