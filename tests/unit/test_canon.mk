test_canon_SRCS := ../../user/lib/canon.c
