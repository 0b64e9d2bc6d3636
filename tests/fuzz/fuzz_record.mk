fuzz_record_SRCS := ../../kmod/record.c
