fuzz_cache_SRCS := ../../user/lib/cache.c ../../user/lib/cache_file.c ../../user/lib/cache_index.c ../../user/lib/idset.c ../../user/lib/file.c
fuzz_cache: ../../user/lib/cache.c ../../user/lib/cache_file.c ../../user/lib/cache_index.c ../../user/lib/cache.h ../../user/lib/cache_file.h ../../user/lib/file.c
