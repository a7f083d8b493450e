#include <cstdlib>
#include <cstring>
#include "harness.cuh"
#include "heap.cuh"
#include "std_heap.cuh"
VALUES_BEGIN
#include "stdlib.values"
#include "cstdlib.values"
VALUES_END
