#!/bin/sh
. "$top_srcdir/tests/lib.sh"
fail "not written yet"
finish
