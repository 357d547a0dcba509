/*
 * test_support.c: capturing logger, fault-injecting allocator and the suite runner shared by the
 * Check suites. The logger is guarded by a mutex because systems log from worker threads.
 */
#include "test_support.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static char *log_text;
static size_t log_size, log_cap;

static void capture_sink(void *user, ona_log_level level, const char *where, const char *msg) {
    (void)user;
    char line[4096];
    int n = snprintf(line, sizeof line, "%s: %s: %s\n", ona_log_level_name(level), where, msg);
    if (n < 0)
        return;
    size_t len = (size_t)n < sizeof line ? (size_t)n : sizeof line - 1;
    pthread_mutex_lock(&log_lock);
    if (log_size + len + 1 > log_cap) {
        size_t cap = log_cap ? log_cap * 2 : 4096;
        while (cap < log_size + len + 1)
            cap *= 2;
        char *grown = realloc(log_text, cap);
        if (grown) {
            log_text = grown;
            log_cap = cap;
        }
    }
    if (log_size + len + 1 <= log_cap) {
        memcpy(log_text + log_size, line, len);
        log_size += len;
        log_text[log_size] = '\0';
    }
    pthread_mutex_unlock(&log_lock);
    if (getenv("ONA_TEST_VERBOSE"))
        fputs(line, stderr);
}

void capture_logs_begin(void) {
    pthread_mutex_lock(&log_lock);
    log_size = 0;
    if (log_text)
        log_text[0] = '\0';
    pthread_mutex_unlock(&log_lock);
    ona_log_set_sink(capture_sink, NULL, ONA_LOG_DEBUG);
}

void capture_logs_end(void) {
    ona_log_set_sink(NULL, NULL, ONA_LOG_INFO);
    pthread_mutex_lock(&log_lock);
    free(log_text);
    log_text = NULL;
    log_size = log_cap = 0;
    pthread_mutex_unlock(&log_lock);
}

int captured_logs_count(const char *needle) {
    int count = 0;
    pthread_mutex_lock(&log_lock);
    const char *p = log_text;
    while (p && (p = strstr(p, needle)) != NULL) {
        count++;
        p += strlen(needle) ? strlen(needle) : 1;
    }
    pthread_mutex_unlock(&log_lock);
    return count;
}

bool captured_logs_contain(const char *needle) {
    return captured_logs_count(needle) > 0;
}

const char *captured_logs_text(void) {
    /* Read without the lock: callers use it in failure messages after the threads stopped. */
    return log_text ? log_text : "";
}

static atomic_long alloc_count;
static long fail_at;
static bool fail_sticky;

static void *fault_realloc(void *user, void *ptr, size_t size) {
    (void)user;
    /* relaxed: a plain counter; tests read it after joining their threads. */
    long n = atomic_fetch_add_explicit(&alloc_count, 1, memory_order_relaxed) + 1;
    if (fail_at > 0 && (n == fail_at || (fail_sticky && n > fail_at)))
        return NULL;
    return realloc(ptr, size);
}

static void fault_free(void *user, void *ptr) {
    (void)user;
    free(ptr);
}

void fault_alloc_begin(long nth, bool sticky) {
    atomic_store_explicit(&alloc_count, 0, memory_order_relaxed);
    fail_at = nth;
    fail_sticky = sticky;
    ona_allocator a = {fault_realloc, fault_free, NULL};
    ona_set_allocator(&a);
}

long fault_alloc_count(void) {
    return atomic_load_explicit(&alloc_count, memory_order_relaxed);
}

void fault_alloc_end(void) {
    ona_set_allocator(NULL);
}

int run_suite(Suite *suite) {
    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
