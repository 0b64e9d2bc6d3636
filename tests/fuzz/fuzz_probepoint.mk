fuzz_probepoint_SRCS := ../../user/lib/probepoint.c
fuzz_probepoint: ../../user/lib/probepoint.c ../../user/lib/probepoint.h
