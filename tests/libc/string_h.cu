#include <string.h>
#include "harness.cuh"
#include "copy.cuh"
VALUES_BEGIN
#include "string.values"
VALUES_END
