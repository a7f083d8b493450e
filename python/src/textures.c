/* textures.c */
#include "cudyn_py.h"
