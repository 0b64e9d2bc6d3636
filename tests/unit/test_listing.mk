test_listing_SRCS := ../../user/lib/listing.c
