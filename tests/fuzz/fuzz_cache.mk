fuzz_cache_SRCS := ../../user/cache.c ../../user/cache_index.c ../../user/file.c
fuzz_cache: ../../user/cache.c ../../user/cache_index.c ../../user/cache.h ../../user/file.c
