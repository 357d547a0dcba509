/*
 * cdp_client.h: a small client of Chromium's DevTools protocol for the page tests: it starts
 * headless Chromium with --remote-debugging-pipe (commands on its fd 3, answers on its fd 4, each
 * message JSON ended by a NUL byte), opens one page and drives it: JavaScript evaluated in the
 * page, real key events, screenshots. Every call waits at most CDP_WAIT_S seconds for its answer.
 *
 * Any thread, one at a time; it never calls Check: a failed call returns false or NULL and leaves
 * the reason in cdp_error().
 */
#ifndef ONA_CDP_CLIENT_H
#define ONA_CDP_CLIENT_H

#include <jansson.h>
#include <stdbool.h>

enum { CDP_WAIT_S = 60 };

typedef struct cdp cdp;

/* Starts `chromium` (its standard error into `log_path`, its profile in `profile_dir`) and opens
 * a page of `width` x `height` CSS pixels at about:blank. NULL on failure (see cdp_error(NULL)). */
cdp *cdp_open(const char *chromium, const char *profile_dir, const char *log_path, int width,
              int height);
/* Closes the browser, waits for it to exit and frees `c`. */
void cdp_close(cdp *c);
/* Why the last call failed ("" when none). */
const char *cdp_error(const cdp *c);

/* Loads `url` in the page. */
bool cdp_navigate(cdp *c, const char *url);
/* The value of the JavaScript expression `expr` in the page (promises awaited), as JSON, or NULL
 * (an exception, a failure). The caller frees it (json_decref). */
json_t *cdp_eval(cdp *c, const char *expr);
/* Evaluates `expr` every 100 ms until it is true, for at most CDP_WAIT_S seconds. */
bool cdp_wait_for(cdp *c, const char *expr);
/* Types `text` into whatever has the focus, one key event per character; then Enter when
 * `enter`. */
bool cdp_type(cdp *c, const char *text, bool enter);
/* Writes a PNG of the page's viewport to `path`. */
bool cdp_screenshot(cdp *c, const char *path);

#endif
