fuzz_listing_SRCS := ../../user/lib/listing.c
fuzz_listing: ../../user/lib/listing.c ../../user/lib/armed.h
