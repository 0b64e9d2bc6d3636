test_pattern_SRCS := ../../user/lib/pattern.c ../../user/lib/cache.c ../../user/lib/cache_file.c ../../user/lib/cache_index.c ../../user/lib/util.c ../../user/lib/file.c ../../user/lib/canon.c
