/* expressions.c */
#include "cudyn_py.h"
