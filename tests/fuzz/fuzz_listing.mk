fuzz_listing_SRCS := ../../user/listing.c
fuzz_listing: ../../user/listing.c ../../user/armed.h
