test_mapsweep_SRCS := ../../user/lib/mapsweep.c ../../user/lib/sdt.c ../../user/lib/sdtnote.c ../../user/lib/argspec.c ../../user/lib/util.c ../../user/lib/file.c
test_mapsweep_LIBS := -lelf
