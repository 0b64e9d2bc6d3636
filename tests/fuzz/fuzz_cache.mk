fuzz_cache_SRCS := ../../user/cache.c
fuzz_cache: ../../user/cache.c ../../user/cache.h
