/* util.c */
#include "cudyn_py.h"
