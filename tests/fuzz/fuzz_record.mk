fuzz_record_SRCS := ../../common/record.c
