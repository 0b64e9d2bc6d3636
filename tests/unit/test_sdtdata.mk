test_sdtdata_SRCS := ../../user/lib/sdtdata.c ../../user/lib/sdtargs.c ../../common/record.c
