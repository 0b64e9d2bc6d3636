fuzz_sdtdata_SRCS := ../../user/lib/sdtdata.c ../../user/lib/sdtargs.c ../../common/record.c
fuzz_sdtdata: ../../user/lib/sdtdata.c ../../user/lib/sdtdata.h ../../user/lib/sdtargs.c
