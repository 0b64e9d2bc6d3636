test_cache_SRCS := ../../user/cache.c ../../user/util.c ../../user/file.c
