#include <float.h>
#include "harness.cuh"
VALUES_BEGIN
#include "float.values"
VALUES_END
