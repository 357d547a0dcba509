/*
 * error.c: error codes to text. The codes and texts come from one X-macro list in ona/ona.h, so
 * a new code cannot be added without its text.
 */
#include "common.h"

const char *ona_strerror(int code) {
    switch (code) {
    case ONA_OK:
        return "success";
#define ONA__ERROR_TEXT(name, value, text)                                                         \
    case name:                                                                                     \
        return text;
        ONA_ERROR_LIST(ONA__ERROR_TEXT)
#undef ONA__ERROR_TEXT
    default:
        return "unknown error";
    }
}

const char *ona_error_name(int code) {
    switch (code) {
    case ONA_OK:
        return "ONA_OK";
#define ONA__ERROR_NAME(name, value, text)                                                         \
    case name:                                                                                     \
        return #name;
        ONA_ERROR_LIST(ONA__ERROR_NAME)
#undef ONA__ERROR_NAME
    default:
        return "ONA_UNKNOWN";
    }
}
