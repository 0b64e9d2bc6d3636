test_elfnote_SRCS := ../../common/elfnote.c
test_elfnote_LIBS := -lelf
