#ifndef PUSH_CEVENT_SHIM_H
#define PUSH_CEVENT_SHIM_H
/* OpenSSL first: it settles <sys/select.h> the same way COpenSSL does (docs/ARCHITECTURE.md, "C libraries"). */
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <event2/event.h>
#include <event2/thread.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/listener.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <event2/util.h>
#include <event2/dns.h>

static inline int push_set_nodelay(evutil_socket_t fd) {
    int one = 1;
    return setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}
#endif
