test_argspec_SRCS := ../../user/argspec.c
