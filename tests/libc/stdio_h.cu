#include <stdio.h>
#include "harness.cuh"
VALUES_BEGIN
#include "stdio.values"
VALUES_END
