test_pattern_SRCS := ../../user/pattern.c ../../user/cache.c ../../user/util.c ../../user/file.c
