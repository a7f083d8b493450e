__device__ bool device_copy_and_set()
{
    unsigned char a[8], b[8];
    memset(a, 0xab, sizeof a);
    memcpy(b, a, sizeof b);
    return b[0] == 0xab && b[7] == 0xab;
}
