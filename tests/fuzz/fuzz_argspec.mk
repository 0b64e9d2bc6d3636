fuzz_argspec_SRCS := ../../user/lib/argspec.c ../../common/record.c
fuzz_argspec: ../../user/lib/argspec.c ../../user/lib/argspec.h
