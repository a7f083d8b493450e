/* streams.c */
#include "cudyn_py.h"
