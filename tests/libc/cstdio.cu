#include <cstdio>
#include "harness.cuh"
VALUES_BEGIN
#include "stdio.values"
#include "cstdio.values"
VALUES_END
