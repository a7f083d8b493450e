/* host_args.c */
#include "cudyn_py.h"
