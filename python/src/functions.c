/* functions.c */
#include "cudyn_py.h"
