test_followpolicy_SRCS := ../../user/lib/followpolicy.c ../../user/lib/ksites.c ../../user/lib/util.c ../../user/lib/file.c
