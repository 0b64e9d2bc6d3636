fuzz_cache_SRCS := ../../user/lib/cache_file.c ../../user/lib/cache_index.c ../../user/lib/file.c
fuzz_cache: ../../user/lib/cache_file.c ../../user/lib/cache_index.c ../../user/lib/cache.h ../../user/lib/file.c
