fuzz_sdtargs_SRCS := ../../user/lib/sdtargs.c ../../common/record.c
fuzz_sdtargs: ../../user/lib/sdtargs.c ../../user/lib/sdtargs.h
