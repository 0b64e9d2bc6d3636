test_uprobedef_SRCS := ../../user/lib/uprobedef.c ../../common/record.c ../../common/elfnote.c
