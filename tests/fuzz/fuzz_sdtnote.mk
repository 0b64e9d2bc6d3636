fuzz_sdtnote_SRCS := ../../user/lib/sdtnote.c
fuzz_sdtnote: ../../user/lib/sdtnote.c ../../user/lib/sdtnote.h
