test_listing_SRCS := ../../user/listing.c
