fuzz_elfnote_SRCS := ../../common/elfnote.c
