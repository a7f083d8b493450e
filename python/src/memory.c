/* memory.c */
#include "cudyn_py.h"
