#!/bin/sh
# Bootstrap a git checkout (release tarballs already have ./configure).
exec autoreconf -fi "$@"
