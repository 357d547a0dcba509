/*
 * test_mailbox.c: the bounded MPSC mailbox: FIFO per producer, capacity, refusal when full
 * without loss, statistics, many producers at once (run under the tsan preset), and release of
 * what is still queued.
 */
#include "test_support.h"

#include "mailbox.h"

#include <pthread.h>
#include <sched.h>

static ona_message number_message(double a, double b) {
    ona_message m;
    ona_message_init(&m);
    ona_message_writer w;
    ona_message_writer_begin(&w, &m);
    ona_message_write_number(&w, a);
    ona_message_write_number(&w, b);
    ck_assert_int_eq(ona_message_writer_end(&w), 0);
    return m;
}

static void read_numbers(ona_message *m, double *a, double *b) {
    ona_message_reader r;
    ona_message_reader_begin(&r, m);
    ona_value v;
    ck_assert_int_eq(ona_message_read(&r, &v), 0);
    ck_assert_int_eq(v.type, ONA_VALUE_NUMBER);
    *a = v.as.number;
    ck_assert_int_eq(ona_message_read(&r, &v), 0);
    ck_assert_int_eq(v.type, ONA_VALUE_NUMBER);
    *b = v.as.number;
}

START_TEST(test_mailbox_fifo_and_capacity) {
    ona__mailbox *mb;
    ck_assert_int_eq(ona__mailbox_create(3, &mb), 0);
    ck_assert_uint_eq(ona__mailbox_capacity(mb), 4); /* rounded up to a power of two */
    ck_assert(ona__mailbox_is_empty(mb));
    for (int i = 0; i < 4; i++) {
        ona_message m = number_message(i, 0);
        ck_assert_int_eq(ona__mailbox_push(mb, &m), 0);
        ck_assert_uint_eq(ona_message_count(&m), 0); /* moved in */
    }
    ck_assert(ona__mailbox_is_full(mb));
    ona_message extra = number_message(99, 0);
    ck_assert_int_eq(ona__mailbox_push(mb, &extra), ONA_EFULL);
    /* The refused message is untouched and still the caller's. */
    ck_assert_uint_eq(ona_message_count(&extra), 2);
    for (int i = 0; i < 4; i++) {
        ona_message out;
        ona_message_init(&out);
        ck_assert_int_eq(ona__mailbox_pop(mb, &out), 0);
        double a, b;
        read_numbers(&out, &a, &b);
        ck_assert(a == i);
        ona_message_release(&out);
    }
    ona_message out;
    ona_message_init(&out);
    ck_assert_int_eq(ona__mailbox_pop(mb, &out), ONA_EEMPTY);
    ck_assert_int_eq(ona__mailbox_push(mb, &extra), 0);
    ona__mailbox_stats st;
    ona__mailbox_stats_get(mb, &st);
    ck_assert_uint_eq(st.pushed, 5);
    ck_assert_uint_eq(st.popped, 4);
    ck_assert_uint_eq(st.full, 1);
    ck_assert_uint_eq(st.high_water, 4);
    ona__mailbox_destroy(mb);
}
END_TEST

START_TEST(test_mailbox_rejects_bad_capacity) {
    ona__mailbox *mb = NULL;
    ck_assert_int_eq(ona__mailbox_create(0, &mb), ONA_EINVAL);
    ck_assert_int_eq(ona__mailbox_create((1u << 24) + 1, &mb), ONA_EINVAL);
    ck_assert_ptr_null(mb);
}
END_TEST

START_TEST(test_mailbox_destroy_releases_queued_messages) {
    /* Heap strings and large messages queued at destroy must be freed (ASan checks leaks). */
    ona__mailbox *mb;
    ck_assert_int_eq(ona__mailbox_create(8, &mb), 0);
    for (int i = 0; i < 5; i++) {
        ona_message m;
        ona_message_init(&m);
        ona_message_writer w;
        ona_message_writer_begin(&w, &m);
        ona_string s;
        ck_assert_int_eq(ona_string_format(&s, "a heap string, long enough to allocate %d", i), 0);
        ona_message_write_ona_string(&w, &s);
        ona_string_release(&s);
        char big[300];
        memset(big, 'x', sizeof big);
        ona_message_write_string(&w, big, sizeof big);
        ck_assert_int_eq(ona_message_writer_end(&w), 0);
        ck_assert_int_eq(ona__mailbox_push(mb, &m), 0);
    }
    ona__mailbox_destroy(mb);
}
END_TEST

START_TEST(test_mailbox_allocation_failure) {
    ona__mailbox *mb = NULL;
    fault_alloc_begin(1, false);
    ck_assert_int_eq(ona__mailbox_create(16, &mb), ONA_ENOMEM);
    fault_alloc_begin(2, false);
    ck_assert_int_eq(ona__mailbox_create(16, &mb), ONA_ENOMEM);
    fault_alloc_end();
    ck_assert_ptr_null(mb);
}
END_TEST

enum { PRODUCERS = 4, PER_PRODUCER = 20000 };

typedef struct producer {
    ona__mailbox *mb;
    int id;
    long refused;
} producer;

static void *produce(void *arg) {
    producer *p = arg;
    for (int i = 0; i < PER_PRODUCER; i++) {
        ona_message m = number_message(p->id, i);
        while (ona__mailbox_push(p->mb, &m) == ONA_EFULL) {
            p->refused++;
            sched_yield();
        }
    }
    return NULL;
}

START_TEST(test_mailbox_many_producers_keep_per_sender_order) {
    ona__mailbox *mb;
    ck_assert_int_eq(ona__mailbox_create(64, &mb), 0);
    producer producers[PRODUCERS];
    pthread_t threads[PRODUCERS];
    for (int i = 0; i < PRODUCERS; i++) {
        producers[i] = (producer){mb, i, 0};
        ck_assert_int_eq(pthread_create(&threads[i], NULL, produce, &producers[i]), 0);
    }
    double next[PRODUCERS] = {0};
    long received = 0;
    while (received < (long)PRODUCERS * PER_PRODUCER) {
        ona_message m;
        ona_message_init(&m);
        if (ona__mailbox_pop(mb, &m) != 0) {
            sched_yield();
            continue;
        }
        double who, seq;
        read_numbers(&m, &who, &seq);
        ona_message_release(&m);
        ck_assert(who >= 0 && who < PRODUCERS);
        /* FIFO per producer: each producer's numbers arrive in order, none missing. */
        ck_assert_msg(seq == next[(int)who], "producer %d: got %g, expected %g", (int)who, seq,
                      next[(int)who]);
        next[(int)who] = seq + 1;
        received++;
    }
    for (int i = 0; i < PRODUCERS; i++)
        pthread_join(threads[i], NULL);
    ona__mailbox_stats st;
    ona__mailbox_stats_get(mb, &st);
    ck_assert_uint_eq(st.pushed, (uint64_t)PRODUCERS * PER_PRODUCER);
    ck_assert_uint_eq(st.popped, (uint64_t)PRODUCERS * PER_PRODUCER);
    ck_assert_uint_le(st.high_water, 64);
    ck_assert(ona__mailbox_is_empty(mb));
    ona__mailbox_destroy(mb);
}
END_TEST

int main(void) {
    Suite *s = suite_create("mailbox");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_mailbox_fifo_and_capacity);
    tcase_add_test(tc, test_mailbox_rejects_bad_capacity);
    tcase_add_test(tc, test_mailbox_destroy_releases_queued_messages);
    tcase_add_test(tc, test_mailbox_allocation_failure);
    tcase_add_test(tc, test_mailbox_many_producers_keep_per_sender_order);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
