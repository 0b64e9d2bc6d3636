test_cache_SRCS := ../../user/cache.c ../../user/cache_index.c ../../user/util.c ../../user/file.c
