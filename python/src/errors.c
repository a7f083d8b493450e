/* errors.c */
#include "cudyn_py.h"
