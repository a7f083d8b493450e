#include <cstring>
#include "harness.cuh"
#include "copy.cuh"
#include "std_copy.cuh"
VALUES_BEGIN
#include "string.values"
#include "cstring.values"
VALUES_END
