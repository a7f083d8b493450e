#include <stdlib.h>
#include <string.h>
#include "harness.cuh"
#include "heap.cuh"
VALUES_BEGIN
#include "stdlib.values"
VALUES_END
