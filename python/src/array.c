/* array.c */
#include "cudyn_py.h"
