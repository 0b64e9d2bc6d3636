test_sdtnote_SRCS := ../../user/sdtnote.c ../../user/sdt.c ../../user/argspec.c ../../user/util.c ../../user/file.c
test_sdtnote_LIBS := -lelf
