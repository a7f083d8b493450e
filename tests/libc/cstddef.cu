#include <cstddef>
#include "harness.cuh"
#include "pair.h"
VALUES_BEGIN
#include "stddef.values"
#include "cstddef.values"
VALUES_END
