fuzz_argspec_SRCS := ../../user/argspec.c ../../kmod/record.c
fuzz_argspec: ../../user/argspec.c ../../user/argspec.h
