/*
 * version.c: what the library was built as, for launchers and bug reports.
 */
#include "common.h"

#ifndef ONA_BUILD_TYPE
#define ONA_BUILD_TYPE "unknown"
#endif

const char *ona_version(void) {
    return ONA_VERSION_STRING;
}

const char *ona_build_type(void) {
    return ONA_BUILD_TYPE;
}
