# The one growable array (fkvector.h): header-only, so it needs no library;
# the engine, lib/ and the plugins include it as "vector/fkvector.h".  Its
# unit test is tests/unit/vector.t (tests/local.mk).
EXTRA_DIST += lib/vector/fkvector.h
