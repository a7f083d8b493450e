/* init.c - the module cudyn._cudyn */
#include "cudyn_py.h"

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "cudyn._cudyn", "cudyn's C extension", -1, NULL, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__cudyn(void);
PyMODINIT_FUNC PyInit__cudyn(void)
{
    return PyModule_Create(&module_def);
}
