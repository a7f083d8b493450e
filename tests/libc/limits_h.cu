#include <limits.h>
#include "harness.cuh"
VALUES_BEGIN
#include "limits.values"
VALUES_END
