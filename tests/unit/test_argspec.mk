test_argspec_SRCS := ../../user/lib/argspec.c
