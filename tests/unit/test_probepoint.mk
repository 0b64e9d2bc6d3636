test_probepoint_SRCS := ../../user/probepoint.c
