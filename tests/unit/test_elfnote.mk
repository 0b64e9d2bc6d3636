test_elfnote_SRCS := ../../kmod/elfnote.c
test_elfnote_LIBS := -lelf
