test_followstats_SRCS := ../../user/lib/followstats.c ../../user/lib/openmetrics.c ../../user/lib/util.c ../../user/lib/file.c
