fuzz_archive_SRCS := ../../user/archive.c ../../user/cache.c ../../kmod/record.c
fuzz_archive: ../../user/archive.c ../../user/export.h ../../user/cache.c ../../user/cache.h
