fuzz_archive_SRCS := ../../user/lib/archive.c ../../user/lib/cache.c ../../user/lib/cache_file.c ../../user/lib/cache_index.c ../../user/lib/idset.c ../../user/lib/file.c ../../user/lib/recheck.c ../../common/record.c
fuzz_archive: CFLAGS += -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
fuzz_archive: ../../user/lib/archive.c ../../user/lib/archive.h ../../user/lib/cache.c ../../user/lib/cache_file.c ../../user/lib/cache.h ../../user/lib/cache_file.h ../../user/lib/recheck.c ../../user/lib/cache_index.c
