/*
 * pin.c: keeps the GL driver's shared libraries loaded until the process ends (pin.h says why).
 *
 * Design note. dl_iterate_phdr lists what is loaded; each driver library found is opened again
 * with RTLD_NOLOAD | RTLD_NODELETE, which takes a reference to the loaded copy (never loading a
 * new one) and marks it never to be unloaded. The handles are never closed, on purpose. Only
 * libraries already loaded are touched, so a call before the driver is up does nothing, and
 * calling again after more came in (the game controllers' libudev) pins those too.
 */
#include "pin.h"

#include "common.h"

#include <dlfcn.h>
#include <link.h>

static int pin_library(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size, (void)data;
    static const char *const driver[] = {"libEGL", "_dri.so", "libgallium", "libLLVM", "libglapi",
                                         "libgbm", "libGLX",  "libGL.",     "libudev"};
    if (!info->dlpi_name || !info->dlpi_name[0])
        return 0;
    for (size_t i = 0; i < ONA_ARRAY_COUNT(driver); i++) {
        if (strstr(info->dlpi_name, driver[i])) {
            /* NOLOAD finds the loaded copy and NODELETE keeps it: the handle is never closed, on
             * purpose, so the library outlives every dlclose of the driver's own. */
            (void)dlopen(info->dlpi_name, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
            break;
        }
    }
    return 0;
}

void ona__gfx_pin_libraries(void) {
    dl_iterate_phdr(pin_library, NULL);
}
