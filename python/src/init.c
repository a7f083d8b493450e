/* init.c - the module cudyn._cudyn: its types, exceptions and functions.
 * Importing it loads no driver. */
#include "cudyn_py.h"

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "cudyn._cudyn",
    "cudyn's C extension: the CUDA driver and NVRTC through libcudyn's stable ABI.", -1, cpy_functions,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__cudyn(void);
PyMODINIT_FUNC PyInit__cudyn(void)
{
    /* every type of the module, made from its spec (cudyn_py.h); a
     * vectorcall one (calls) with cpy_vectorcall_flag() */
    static const struct {
        PyTypeObject **type;
        const PyType_Spec *spec;
        int calls;
    } types[] = {
        {&DeviceMemory_Type, &DeviceMemory_Spec, 0}, {&PinnedMemory_Type, &PinnedMemory_Spec, 0},
        {&DeviceArray_Type, &DeviceArray_Spec, 0},   {&In_Type, &In_Spec, 0},
        {&Out_Type, &Out_Spec, 0},                   {&InOut_Type, &InOut_Spec, 0},
        {&Module_Type, &Module_Spec, 0},             {&Function_Type, &Function_Spec, 1},
        {&PreparedFunction_Type, &PreparedFunction_Spec, 1}, {&Stream_Type, &Stream_Spec, 0},
        {&Event_Type, &Event_Spec, 0},               {&Graph_Type, &Graph_Spec, 0},
        {&GraphExec_Type, &GraphExec_Spec, 0},       {&Elementwise_Type, &Elementwise_Spec, 0},
        {&Reduction_Type, &Reduction_Spec, 0},       {&Array_Type, &Array_Spec, 0},
        {&Texture_Type, &Texture_Spec, 0},           {&DLPackOwner_Type, &DLPackOwner_Spec, 0},
        {&Linker_Type, &Linker_Spec, 0},
    };
    cpy_format_init();
    if (cpy_launch_init() < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (!m)
        return NULL;
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (cpy_type_new(m, types[i].type, types[i].spec, types[i].calls ? cpy_vectorcall_flag() : 0, NULL) < 0)
            goto fail;
    if (cpy_errors_init(m) < 0 || cpy_nccl_init(m) < 0 || cpy_link_init(m) < 0)
        goto fail;
#define CPY_INT_(name, value)                                                                                  \
    if (PyModule_AddIntConstant(m, name, value) < 0)                                                           \
        goto fail;
#define CPY_STATUS_CONST_(name, value, text) CPY_INT_(#name, value)
    CUDYN_STATUS_MAP(CPY_STATUS_CONST_)
#undef CPY_STATUS_CONST_
    CPY_INT_("STREAM_NON_BLOCKING", CUDYN_STREAM_NON_BLOCKING)
    CPY_INT_("EVENT_BLOCKING_SYNC", CUDYN_EVENT_BLOCKING_SYNC)
    CPY_INT_("EVENT_DISABLE_TIMING", CUDYN_EVENT_DISABLE_TIMING)
    CPY_INT_("INIT_LEGACY_STREAM", CUDYN_INIT_LEGACY_STREAM)
    CPY_INT_("INIT_PER_THREAD_STREAM", CUDYN_INIT_PER_THREAD_STREAM)
    CPY_INT_("FILTER_POINT", CUDYN_FILTER_POINT)
    CPY_INT_("FILTER_LINEAR", CUDYN_FILTER_LINEAR)
    CPY_INT_("ADDRESS_WRAP", CUDYN_ADDRESS_WRAP)
    CPY_INT_("ADDRESS_CLAMP", CUDYN_ADDRESS_CLAMP)
    CPY_INT_("ADDRESS_MIRROR", CUDYN_ADDRESS_MIRROR)
    CPY_INT_("ADDRESS_BORDER", CUDYN_ADDRESS_BORDER)
    CPY_INT_("READ_ELEMENT_TYPE", CUDYN_READ_ELEMENT_TYPE)
    CPY_INT_("READ_NORMALIZED_FLOAT", CUDYN_READ_NORMALIZED_FLOAT)
    CPY_INT_("CAPTURE_GLOBAL", CUDYN_CAPTURE_GLOBAL)
    CPY_INT_("CAPTURE_THREAD_LOCAL", CUDYN_CAPTURE_THREAD_LOCAL)
    CPY_INT_("CAPTURE_RELAXED", CUDYN_CAPTURE_RELAXED)
    CPY_INT_("_MAX_ARGS", CUDYN_MAX_ARGS) /* the most parameters a launch takes: the Python layer's kernels */
#undef CPY_INT_
    /* the option that gives a text written for nvcc nvcc's predefined names:
     * the PyCUDA layer's texts */
    if (PyModule_AddStringConstant(m, "_OPTION_NVCC_NAMES", CUDYN_OPTION_NVCC_NAMES) < 0)
        goto fail;
    return m;
fail:
    Py_DECREF(m);
    return NULL;
}
