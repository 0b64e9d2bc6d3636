test_canon_SRCS := ../../user/canon.c
