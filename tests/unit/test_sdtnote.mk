test_sdtnote_SRCS := ../../user/lib/sdtnote.c ../../user/lib/sdt.c ../../user/lib/argspec.c ../../user/lib/util.c ../../user/lib/file.c
test_sdtnote_LIBS := -lelf
