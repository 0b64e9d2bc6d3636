test_probepoint_SRCS := ../../user/lib/probepoint.c
