/*
 * pin.h: keeping the GL driver's libraries loaded to the end of the process (pin.c). Internal.
 */
#ifndef ONA_PIN_H
#define ONA_PIN_H

/* Keeps the GL driver's shared libraries (EGL, the DRI driver, Mesa's gallium and LLVM, glapi,
 * gbm, GLX, libudev) loaded until the process ends, once a context exists. Drivers allocate
 * state they free only at exit; unloaded earlier (SDL and EGL close their libraries at quit),
 * a leak checker run at exit sees that state with no module to name, and no suppression file can
 * match it. Pinning makes every process that draws, the launcher included, report the same way
 * whatever order the driver is torn down in. libudev, which SDL loads with its game
 * controllers and unloads with them, is kept too: a library with thread-local storage loaded and
 * unloaded again and again leaves a stale dynamic-TLS entry that crashes LeakSanitizer's tracer
 * at exit. Idempotent; any thread; called by ona__window_create, the GL probe and
 * ona__gamepads_start. */
void ona__gfx_pin_libraries(void);

#endif
