fuzz_elfnote_SRCS := ../../kmod/elfnote.c
