/*
 * mock_device.c - the mock driver's devices: count, names, UUIDs,
 * attributes, PCI ids and which peers they can reach (MOCK_CUDA_P2P).
 */
#include "config.h"

#include <stdio.h>

#include "mock.h"

cu_result cuDeviceGetCount(int *count)
{
    ENTER("cuDeviceGetCount");
    NEED_INIT();
    *count = mock.n_devices;
    return CU_OK;
}

cu_result cuDeviceGet(cu_device *dev, int ordinal)
{
    ENTER("cuDeviceGet");
    NEED_INIT();
    if (ordinal < 0 || ordinal >= mock.n_devices)
        return CU_ERR_INVALID_DEVICE;
    *dev = ordinal;
    return CU_OK;
}

cu_result cuDeviceGetName(char *name, int len, cu_device dev)
{
    ENTER("cuDeviceGetName");
    CHECK_DEVICE(dev);
    snprintf(name, (size_t)len, "%s", mock.devices[dev].name);
    return CU_OK;
}

static void fill_uuid(cu_uuid *uuid, cu_device dev)
{
    for (int i = 0; i < 16; i++)
        uuid->bytes[i] = (char)(0x10 * (dev + 1) + i);
}

cu_result cuDeviceGetUuid(cu_uuid *uuid, cu_device dev)
{
    ENTER("cuDeviceGetUuid");
    CHECK_DEVICE(dev);
    fill_uuid(uuid, dev);
    return CU_OK;
}

cu_result cuDeviceGetUuid_v2(cu_uuid *uuid, cu_device dev)
{
    ENTER("cuDeviceGetUuid_v2");
    CHECK_DEVICE(dev);
    fill_uuid(uuid, dev);
    return CU_OK;
}

cu_result cuDeviceTotalMem_v2(size_t *bytes, cu_device dev)
{
    ENTER("cuDeviceTotalMem_v2");
    CHECK_DEVICE(dev);
    *bytes = mock.mem_limit;
    return CU_OK;
}

cu_result cuDeviceGetAttribute(int *value, cu_enum attrib, cu_device dev)
{
    ENTER("cuDeviceGetAttribute");
    CHECK_DEVICE(dev);
    if (attrib == 0 || attrib > 147)
        return CU_ERR_INVALID_VALUE;
    switch (attrib) {
    case 1: *value = MOCK_MAX_THREADS_PER_BLOCK; break;
    case 2: *value = MOCK_MAX_BLOCK_X; break;
    case 3: *value = MOCK_MAX_BLOCK_Y; break;
    case 4: *value = MOCK_MAX_BLOCK_Z; break;
    case 5: *value = MOCK_MAX_GRID_X; break;
    case 6: *value = MOCK_MAX_GRID_Y; break;
    case 7: *value = MOCK_MAX_GRID_Z; break;
    case 8: *value = MOCK_SHARED_PER_BLOCK; break;
    case 10: *value = 32; break;                    /* warp size */
    case 12: *value = 65536; break;
    case 13: *value = 1755000; break;               /* clock, kHz */
    case 16: *value = mock_multiprocessors(dev); break;
    case 33: *value = 0x17 + dev; break;            /* PCI bus */
    case 34: *value = 0; break;
    case 36: *value = 2619000; break;
    case 37: *value = 5120; break;
    case 38: *value = 50 << 20; break;
    case 39: *value = MOCK_THREADS_PER_SM; break;
    case 40: *value = 2; break;
    case 41: *value = 1; break;                     /* unified addressing */
    case 50: *value = 0; break;
    case 75: *value = mock.devices[dev].cc / 10; break;
    case 76: *value = mock.devices[dev].cc % 10; break;
    case 83: *value = 1; break;                     /* managed memory */
    case 89: *value = 1; break;                     /* concurrent managed access */
    case 95: *value = 1; break;                     /* cooperative launch */
    case 97: *value = MOCK_SHARED_PER_BLOCK_OPTIN; break;
    case 115: *value = 1; break;                    /* memory pools */
    case 120: *value = mock.devices[dev].cc >= 90; break; /* cluster launch */
    default: *value = (int)attrib % 2; break;       /* boolean-like placeholder */
    }
    return CU_OK;
}

cu_result cuDeviceGetPCIBusId(char *bus_id, int len, cu_device dev)
{
    ENTER("cuDeviceGetPCIBusId");
    CHECK_DEVICE(dev);
    snprintf(bus_id, (size_t)len, "00000000:%02X:00.0", 0x17 + dev);
    return CU_OK;
}

cu_result cuDeviceCanAccessPeer(int *can, cu_device dev, cu_device peer)
{
    ENTER("cuDeviceCanAccessPeer");
    CHECK_DEVICE(dev);
    CHECK_DEVICE(peer);
    *can = mock.p2p[dev][peer];
    return CU_OK;
}

/* CU_DEVICE_P2P_ATTRIBUTE_*: 1 performance rank, 2 access supported,
 * 3 native atomics, 4 CUDA array access, 5 only partial native atomics. */
cu_result cuDeviceGetP2PAttribute(int *value, cu_enum attrib, cu_device src, cu_device dst)
{
    ENTER("cuDeviceGetP2PAttribute");
    CHECK_DEVICE(src);
    CHECK_DEVICE(dst);
    if (src == dst)
        return CU_ERR_INVALID_DEVICE;
    if (!value || attrib < 1 || attrib > 5)
        return CU_ERR_INVALID_VALUE;
    int linked = mock.p2p[src][dst];
    *value = attrib == 1 ? 0 : attrib == 5 ? 0 : linked;
    return CU_OK;
}
