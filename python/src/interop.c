/* interop.c */
#include "cudyn_py.h"
