/*
 * test_error.c: error codes, their texts, the version and the logging hook.
 */
#include "test_support.h"

#include <string.h>

START_TEST(test_error_every_code_has_text_and_name) {
#define CHECK_CODE(name, value, text)                                                              \
    ck_assert_int_lt(name, 0);                                                                     \
    ck_assert_str_eq(ona_strerror(name), text);                                                    \
    ck_assert_str_eq(ona_error_name(name), #name);
    ONA_ERROR_LIST(CHECK_CODE)
#undef CHECK_CODE
    ck_assert_str_eq(ona_strerror(0), "success");
    ck_assert_str_eq(ona_strerror(-9999), "unknown error");
    ck_assert_str_eq(ona_error_name(12345), "ONA_UNKNOWN");
}
END_TEST

START_TEST(test_error_codes_are_distinct) {
    int codes[] = {
#define LIST_CODE(name, value, text) name,
        ONA_ERROR_LIST(LIST_CODE)
#undef LIST_CODE
    };
    size_t n = sizeof codes / sizeof codes[0];
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            ck_assert_int_ne(codes[i], codes[j]);
}
END_TEST

START_TEST(test_error_version_matches_header) {
    ck_assert_str_eq(ona_version(), ONA_VERSION_STRING);
    ck_assert_int_eq(ONA_VERSION_NUMBER,
                     (ONA_VERSION_MAJOR << 16) | (ONA_VERSION_MINOR << 8) | ONA_VERSION_PATCH);
    ck_assert_ptr_nonnull(ona_build_type());
    ck_assert_int_gt((int)strlen(ona_build_type()), 0);
}
END_TEST

START_TEST(test_error_log_sink_receives_messages) {
    capture_logs_begin();
    ona_log(ONA_LOG_WARN, "system 'player'", "bad value %d", 42);
    ck_assert_msg(captured_logs_contain("warn: system 'player': bad value 42"), "%s",
                  captured_logs_text());
    capture_logs_end();
}
END_TEST

static int calls;
static void counting_sink(void *user, ona_log_level level, const char *where, const char *msg) {
    (void)user, (void)level, (void)where, (void)msg;
    calls++;
}

START_TEST(test_error_log_min_level_filters) {
    calls = 0;
    ona_log_set_sink(counting_sink, NULL, ONA_LOG_WARN);
    ona_log(ONA_LOG_DEBUG, "x", "dropped");
    ona_log(ONA_LOG_INFO, "x", "dropped");
    ona_log(ONA_LOG_ERROR, "x", "kept");
    ona_log_set_sink(NULL, NULL, ONA_LOG_INFO);
    ck_assert_int_eq(calls, 1);
}
END_TEST

START_TEST(test_error_log_long_message_is_cut_not_lost) {
    capture_logs_begin();
    char big[5000];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    ona_log(ONA_LOG_ERROR, "here", "%s", big);
    ck_assert(captured_logs_contain("error: here: aaaa"));
    ck_assert(captured_logs_contain("..."));
    capture_logs_end();
}
END_TEST

int main(void) {
    Suite *s = suite_create("error");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_error_every_code_has_text_and_name);
    tcase_add_test(tc, test_error_codes_are_distinct);
    tcase_add_test(tc, test_error_version_matches_header);
    tcase_add_test(tc, test_error_log_sink_receives_messages);
    tcase_add_test(tc, test_error_log_min_level_filters);
    tcase_add_test(tc, test_error_log_long_message_is_cut_not_lost);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
