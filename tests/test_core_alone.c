/*
 * test_core_alone.c: the core links on its own. This suite is built from runtime/core's objects,
 * libuv and Check, and nothing else of Ona: a core file that calls a function defined in gfx,
 * audio, the services, a host or the assembly fails this link, so the wall below the core is
 * checked by the linker as well as by the `walls` test's symbol scan. It does not use
 * tests/test_support.c, which needs the whole runtime.
 *
 * What it runs is the core's own work a message does on its way: strings shared by reference,
 * a message written with a moved buffer, the buffer move committed, the mailbox's bounded
 * push and pop, and the reader on the receiving side.
 */
#include "ona/message.h"
#include "ona/string.h"

#include "mailbox.h"
#include "message.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

START_TEST(test_core_alone_string_shared) {
    ona_string a, b;
    ck_assert_int_eq(ona_string_from_cstr(&a, "a string long enough to live on the heap"), 0);
    b = ona_string_copy(&a);
    ck_assert(ona_string_equal(&a, &b));
    ona_string_release(&a);
    ck_assert(ona_string_equal_bytes(&b, "a string long enough to live on the heap", 40));
    ona_string_release(&b);
}
END_TEST

START_TEST(test_core_alone_message_moves_buffer_through_mailbox) {
    ona__mailbox *mb = NULL;
    ck_assert_int_eq(ona__mailbox_create(2, &mb), 0);

    ona_buffer *buf = NULL;
    ck_assert_int_eq(ona_buffer_create("float", sizeof(float), 4, &buf), 0);
    ((float *)ona_buffer_data(buf))[3] = 2.5f;

    ona_message m;
    ona_message_init(&m);
    ona_message_writer w;
    ona_message_writer_begin(&w, &m);
    ck_assert_int_eq(ona_message_write_string(&w, "hit", 3), 0);
    ck_assert_int_eq(ona_message_write_number(&w, 17), 0);
    ona_buffer *handle = buf;
    ck_assert_int_eq(ona_message_write_buffer(&w, &handle), 0);
    ck_assert_int_eq(ona_message_writer_end(&w), 0);

    /* The sender's handle dies only once the message is committed to a mailbox. */
    ona__moves moves = {.count = 1};
    ona_buffer *sender_handle = buf;
    moves.handles[0] = &sender_handle;
    ck_assert_int_eq(ona__mailbox_push(mb, &m), 0);
    ona__message_commit_moves(NULL, &moves);
    ck_assert_ptr_null(sender_handle);
    ck_assert_uint_eq(moves.count, 0);

    /* Bounded: the third push into a two-slot mailbox is refused, nothing dropped. */
    ona_message small;
    ona_message_init(&small);
    ona_message_writer_begin(&w, &small);
    ck_assert_int_eq(ona_message_write_boolean(&w, true), 0);
    ck_assert_int_eq(ona_message_writer_end(&w), 0);
    ck_assert_int_eq(ona__mailbox_push(mb, &small), 0);
    ona_message third;
    ona_message_init(&third);
    ona_message_writer_begin(&w, &third);
    ck_assert_int_eq(ona_message_write_nil(&w), 0);
    ck_assert_int_eq(ona_message_writer_end(&w), 0);
    ck_assert_int_eq(ona__mailbox_push(mb, &third), ONA_EFULL);
    ona_message_release(&third);
    ck_assert_uint_eq(ona__mailbox_size(mb), 2);

    ona_message got;
    ck_assert_int_eq(ona__mailbox_pop(mb, &got), 0);
    ona_message_reader r;
    ona_message_reader_begin(&r, &got);
    ona_value v;
    ck_assert_int_eq(ona_message_read(&r, &v), 0);
    ck_assert_int_eq(v.type, ONA_VALUE_STRING);
    ck_assert_str_eq(v.as.string.bytes, "hit");
    ck_assert_int_eq(ona_message_read(&r, &v), 0);
    ck_assert_int_eq(v.type, ONA_VALUE_NUMBER);
    ck_assert(v.as.number == 17);
    ck_assert_int_eq(ona_message_read(&r, &v), 0);
    ck_assert_int_eq(v.type, ONA_VALUE_BUFFER);
    ona_buffer *taken = ona_message_take_buffer(&r);
    ck_assert_ptr_eq(taken, buf);
    ck_assert(((float *)ona_buffer_data(taken))[3] == 2.5f);
    ona_buffer_destroy(taken);
    ona_message_release(&got);

    ck_assert_int_eq(ona__mailbox_pop(mb, &got), 0);
    ona_message_release(&got);
    ck_assert(ona__mailbox_is_empty(mb));
    ona__mailbox_destroy(mb);
}
END_TEST

int main(void) {
    Suite *s = suite_create("core_alone");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_core_alone_string_shared);
    tcase_add_test(tc, test_core_alone_message_moves_buffer_through_mailbox);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
