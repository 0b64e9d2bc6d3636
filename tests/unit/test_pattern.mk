test_pattern_SRCS := ../../user/pattern.c ../../user/cache.c ../../user/cache_index.c ../../user/util.c ../../user/file.c ../../user/canon.c
