/* cudyn_py.h - what the files of the extension cudyn._cudyn share.
 * Written over cudyn.h alone (never lib/ internals). */
#ifndef CUDYN_PY_H
#define CUDYN_PY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <cudyn.h>

#endif
