#ifndef PUSH_CLIBPQ_SHIM_H
#define PUSH_CLIBPQ_SHIM_H
#include <libpq-fe.h>
#include <poll.h>

/* PQfreemem and PQnotifies are plain functions; this shim only gathers the headers the wrapper needs
   (libpq for the client, poll for the LISTEN connection's socket wait). */
#endif
