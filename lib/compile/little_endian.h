/*
 * little_endian.h - the integers of cudyn's file formats (the cache entry,
 * cache_entry.c; the multi-architecture image, image_format.c): stored
 * little-endian, a byte at a time, whatever the host's byte order.  The
 * name is not endian.h: -I lib would hide the system's <endian.h>.
 */
#ifndef CUDYN_LITTLE_ENDIAN_H
#define CUDYN_LITTLE_ENDIAN_H

#include <stdint.h>

static inline void cudyn__set_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static inline void cudyn__set_u64(unsigned char *p, uint64_t v)
{
    cudyn__set_u32(p, (uint32_t)v);
    cudyn__set_u32(p + 4, (uint32_t)(v >> 32));
}

static inline uint16_t cudyn__get_u16(const unsigned char *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t cudyn__get_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t cudyn__get_u64(const unsigned char *p)
{
    return (uint64_t)cudyn__get_u32(p) | (uint64_t)cudyn__get_u32(p + 4) << 32;
}

#endif
