test_sdtargs_SRCS := ../../user/lib/sdtargs.c ../../common/record.c
