test_cache_SRCS := ../../user/lib/cache.c ../../user/lib/cache_file.c ../../user/lib/cache_index.c ../../user/lib/idset.c ../../user/lib/util.c ../../user/lib/file.c
