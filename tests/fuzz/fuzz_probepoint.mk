fuzz_probepoint_SRCS := ../../user/probepoint.c
fuzz_probepoint: ../../user/probepoint.c ../../user/probepoint.h
