fuzz_sdtnote_SRCS := ../../user/sdtnote.c
fuzz_sdtnote: ../../user/sdtnote.c ../../user/sdtnote.h
