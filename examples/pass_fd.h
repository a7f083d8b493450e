/*
 * pass_fd.h - handing a file descriptor to another process over a Unix
 * socket (SCM_RIGHTS), with a payload beside it: how a virtual-memory
 * allocation or a memory pool exported by cudyn_vmm_export_fd /
 * cudyn_mem_pool_export_fd reaches the process that imports it.
 *
 * The socket is a connected AF_UNIX one (socketpair, or accept on a named
 * socket).  The receiver owns the descriptor it gets and closes it once
 * imported.  Header only: copy it with the example.
 */
#ifndef PASS_FD_H
#define PASS_FD_H

#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>

/* Sends `bytes` of data with fd beside them; 0, or -1 (errno says why). */
static int send_with_fd(int sock, const void *data, size_t bytes, int fd)
{
    char control[CMSG_SPACE(sizeof(int))];
    memset(control, 0, sizeof control);
    struct iovec iov = {.iov_base = (void *)data, .iov_len = bytes};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control};
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof fd);
    return sendmsg(sock, &msg, 0) == (ssize_t)bytes ? 0 : -1;
}

/* The payload into data and the descriptor that came with it, or -1. */
static int receive_with_fd(int sock, void *data, size_t bytes)
{
    char control[CMSG_SPACE(sizeof(int))];
    memset(control, 0, sizeof control);
    struct iovec iov = {.iov_base = data, .iov_len = bytes};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control};
    if (recvmsg(sock, &msg, MSG_WAITALL) != (ssize_t)bytes)
        return -1;
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    int fd = -1;
    if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
        memcpy(&fd, CMSG_DATA(c), sizeof fd);
    return fd;
}

#endif
