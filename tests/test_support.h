/*
 * test_support.h: what every Check suite shares: a capturing logger (so tests assert on what was
 * reported), a fault-injecting allocator (fail the Nth allocation), and a main() helper.
 */
#ifndef ONA_TEST_SUPPORT_H
#define ONA_TEST_SUPPORT_H

#include <check.h>
#include <stdbool.h>
#include "ona/ona.h"

/* Starts capturing every log message (all levels) in memory instead of printing it. */
void capture_logs_begin(void);
/* Stops capturing and restores the default sink; frees the captured text. */
void capture_logs_end(void);
/* True when some captured message (formatted "level: where: message") contains `needle`. */
bool captured_logs_contain(const char *needle);
/* How many captured messages contain `needle`. */
int captured_logs_count(const char *needle);
/* All captured text, one message a line (for failure messages). */
const char *captured_logs_text(void);

/* Installs an allocator that fails the `nth` allocation from now (1 = the next one), and every
 * one after it if `sticky`. 0 never fails but still counts. */
void fault_alloc_begin(long nth, bool sticky);
/* How many allocations were attempted since fault_alloc_begin. */
long fault_alloc_count(void);
/* Restores the C library allocator. */
void fault_alloc_end(void);

/* Runs one suite with Check and returns the process exit status. */
int run_suite(Suite *suite);

#endif
