/* launch.c */
#include "cudyn_py.h"
