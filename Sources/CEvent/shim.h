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
#include <sys/ioctl.h>
#ifdef __linux__
#include <linux/sockios.h>
#endif
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

/* Acknowledge what was received at once (Linux TCP_QUICKACK; nothing elsewhere). The kernel leaves
 * quick-ACK mode again on its own, and setting it sends an ACK that is due now: set after every read. */
static inline int push_set_quickack(evutil_socket_t fd) {
#ifdef TCP_QUICKACK
    int one = 1;
    return setsockopt(fd, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof(one));
#else
    (void)fd;
    return 0;
#endif
}

static long push_quickack_bio_callback(BIO *bio, int oper, const char *argp, size_t len, int argi, long argl,
                                       int ret, size_t *processed) {
    (void)argp; (void)len; (void)argi; (void)argl; (void)processed;
    if (oper == (BIO_CB_READ | BIO_CB_RETURN) && ret > 0) (void)push_set_quickack((evutil_socket_t)BIO_get_fd(bio, NULL));
    return ret;
}

/* After every read OpenSSL makes from the socket under `ssl` (a socket BIO, as libevent's
 * bufferevent_openssl_socket_new makes), the ACK goes out at once: also when the bytes read are only part
 * of a TLS record, which OpenSSL keeps and libevent reports nothing of. Returns 0 if there is no such BIO. */
static inline int push_ssl_quickack_reads(SSL *ssl) {
    BIO *bio = SSL_get_rbio(ssl);
    if (bio == NULL || BIO_method_type(bio) != BIO_TYPE_SOCKET) return 0;
    BIO_set_callback_ex(bio, push_quickack_bio_callback);
    return 1;
}

/* What the kernel still holds of what was written to `fd` (Linux): `unacknowledged` bytes the peer has not
 * acknowledged (SIOCOUTQ: sent or not), `unsent` bytes not sent yet (SIOCOUTQNSD). Returns 0 on success,
 * -1 where either is unknown (another system, or not a TCP socket). */
static inline int push_socket_output_queue(evutil_socket_t fd, int *unacknowledged, int *unsent) {
#if defined(__linux__) && defined(SIOCOUTQ) && defined(SIOCOUTQNSD)
    if (ioctl(fd, SIOCOUTQ, unacknowledged) != 0) return -1;
    if (ioctl(fd, SIOCOUTQNSD, unsent) != 0) return -1;
    return 0;
#else
    (void)fd; (void)unacknowledged; (void)unsent;
    return -1;
#endif
}
#endif
