#include <stddef.h>
#include "harness.cuh"
#include "pair.h"
VALUES_BEGIN
#include "stddef.values"
VALUES_END
