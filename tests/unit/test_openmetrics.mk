test_openmetrics_SRCS := ../../user/lib/openmetrics.c ../../user/lib/uprofile.c ../../user/lib/util.c ../../user/lib/file.c
