#ifndef PUSH_CSQLITE_SHIM_H
#define PUSH_CSQLITE_SHIM_H
#include <sqlite3.h>

/* SQLITE_TRANSIENT is a cast macro Swift cannot import. */
static inline sqlite3_destructor_type push_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}
/* sqlite3_config is variadic, which Swift cannot call. Turning memory statistics off removes a global
   mutex from every SQLite allocation; it must run before the library is initialised (else SQLITE_MISUSE). */
static inline int push_sqlite_disable_memstatus(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
#endif
