/* module.c */
#include "cudyn_py.h"
