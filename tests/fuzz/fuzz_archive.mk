fuzz_archive_SRCS := ../../user/archive.c ../../user/cache.c ../../user/cache_index.c ../../user/file.c ../../user/recheck.c ../../kmod/record.c
fuzz_archive: CFLAGS += -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
fuzz_archive: ../../user/archive.c ../../user/archive.h ../../user/cache.c ../../user/cache.h ../../user/recheck.c ../../user/cache_index.c
