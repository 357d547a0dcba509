/*
 * test_render_queue.c: thread-local render queues and their merge: the drawing order is
 * (layer, system spawn order, submission order) whatever queue (thread) the sprites went to;
 * consecutive sprites of one system extend one entry; camera and clear settings resolve to the
 * last one in that order; queues keep their memory across frames.
 */
#include "test_support.h"

#include "render_queue.h"

static ona_sprite sprite(float x) {
    ona_sprite s = {0};
    s.x = x;
    s.scale_x = s.scale_y = 1;
    s.tint = 0xFFFFFFFFu;
    return s;
}

/* Flattens a merged list into the x of each sprite in drawing order. */
static int flatten(ona__render_queue *const *queues, ona__render_list *list, float *out, int max) {
    int n = 0;
    for (uint32_t i = 0; i < list->count; i++) {
        const ona__draw *d = list->sorted[i];
        for (uint32_t k = 0; k < d->count && n < max; k++)
            out[n++] = queues[d->queue]->sprites[d->first + k].x;
    }
    return n;
}

START_TEST(test_render_queue_extends_runs_of_one_system) {
    ona__render_queue q;
    ona__render_queue_init(&q);
    uint32_t seq = 0;
    for (int i = 0; i < 100; i++) {
        ona_sprite s = sprite((float)i);
        ck_assert_int_eq(
            ona__render_queue_push(&q, &(ona__draw_key){.layer = 0, .texture = 7}, 3, &seq, &s, 1),
            0);
    }
    ck_assert_uint_eq(q.draw_count, 1);
    ck_assert_uint_eq(q.draws[0].count, 100);
    ck_assert_uint_eq(seq, 100);
    /* Another texture, then another layer: new entries. */
    ona_sprite s = sprite(100);
    ona__render_queue_push(&q, &(ona__draw_key){.layer = 0, .texture = 8}, 3, &seq, &s, 1);
    ona__render_queue_push(&q, &(ona__draw_key){.layer = 1, .texture = 8}, 3, &seq, &s, 1);
    ck_assert_uint_eq(q.draw_count, 3);
    ona__render_queue_free(&q);
}
END_TEST

START_TEST(test_render_queue_merge_orders_by_layer_system_submission) {
    /* The same draws spread over two queues in two different ways must merge identically. */
    float expected[64], got[64];
    int expected_n = 0;
    for (int split = 0; split < 3; split++) {
        ona__render_queue qa, qb;
        ona__render_queue_init(&qa);
        ona__render_queue_init(&qb);
        uint32_t seq[3] = {0, 0, 0};
        /* System order 0..2; each draws on layers 1 and 0, interleaved with other systems. */
        for (int round = 0; round < 3; round++) {
            for (uint32_t sys = 0; sys < 3; sys++) {
                ona__render_queue *q =
                    split == 0 ? &qa
                               : (split == 1 ? ((sys % 2) ? &qb : &qa) : ((round % 2) ? &qb : &qa));
                int layer = (round + (int)sys) % 2;
                ona_sprite s = sprite((float)(100 * layer + 10 * (int)sys + round));
                ck_assert_int_eq(
                    ona__render_queue_push(q, &(ona__draw_key){.layer = layer, .texture = 1 + sys},
                                           sys, &seq[sys], &s, 1),
                    0);
            }
        }
        ona__render_queue *queues[2] = {&qa, &qb};
        ona__render_list list = {0};
        ck_assert_int_eq(ona__render_merge(queues, 2, &list), 0);
        int n = flatten(queues, &list, got, 64);
        ck_assert_int_eq(n, 9);
        /* Layer 0 before layer 1; within a layer by system; within a system by submission. */
        for (int i = 1; i < n; i++)
            ck_assert_msg(got[i - 1] < got[i], "split %d: %g before %g", split, got[i - 1], got[i]);
        if (split == 0) {
            memcpy(expected, got, sizeof got);
            expected_n = n;
        } else {
            ck_assert_int_eq(n, expected_n);
            ck_assert_mem_eq(expected, got, (size_t)n * sizeof(float));
        }
        ona__render_list_free(&list);
        ona__render_queue_free(&qa);
        ona__render_queue_free(&qb);
    }
}
END_TEST

START_TEST(test_render_queue_settings_last_in_order_wins) {
    ona__render_queue qa, qb;
    ona__render_queue_init(&qa);
    ona__render_queue_init(&qb);
    uint32_t seq0 = 0, seq1 = 0;
    ona__setting cam0 = {.kind = ONA__SET_CAMERA, .camera = {.x = 1, .y = 1, .zoom = 1}};
    ona__setting cam1 = {.kind = ONA__SET_CAMERA, .camera = {.x = 2, .y = 2, .zoom = 2}};
    ona__setting red = {.kind = ONA__SET_CLEAR, .value = {1, 0, 0, 1}};
    /* System 1 (later in spawn order) sets the camera; system 0 sets camera and clear. Queue a
     * holds system 1's, so thread order and spawn order disagree. */
    ck_assert_int_eq(ona__render_queue_set(&qa, 1, &seq1, &cam1), 0);
    ck_assert_int_eq(ona__render_queue_set(&qb, 0, &seq0, &cam0), 0);
    ck_assert_int_eq(ona__render_queue_set(&qb, 0, &seq0, &red), 0);
    ona__render_queue *queues[2] = {&qa, &qb};
    ona__render_list list = {0};
    ck_assert_int_eq(ona__render_merge(queues, 2, &list), 0);
    ck_assert_uint_eq(list.setting_count, 3);
    /* Applied in this order, the last camera is system 1's. */
    ck_assert_uint_eq(list.settings[0]->order, 0);
    ck_assert(list.settings[0]->camera.zoom == 1);
    ck_assert_int_eq(list.settings[1]->kind, ONA__SET_CLEAR);
    ck_assert_uint_eq(list.settings[2]->order, 1);
    ck_assert(list.settings[2]->camera.zoom == 2);
    ona__render_list_free(&list);
    ona__render_queue_free(&qa);
    ona__render_queue_free(&qb);
}
END_TEST

/* Canvas passes come before the screen, and a canvas sampled by another canvas's pass is drawn
 * first, whatever the ids and the queues say; a cycle falls back to id order. */
START_TEST(test_render_queue_canvas_passes_precede_their_use) {
    ona__render_queue q;
    ona__render_queue_init(&q);
    uint32_t seq = 0;
    ona_sprite s = {.scale_x = 1, .scale_y = 1, .tint = 0xFFFFFFFFu};
    /* Screen draws canvas 5; canvas 5 samples canvas 9; canvas 9 samples texture 2. */
    ona__render_queue_push(&q, &(ona__draw_key){.texture = 5}, 0, &seq, &s, 1);
    ona__render_queue_push(&q, &(ona__draw_key){.texture = 9, .target = 5}, 0, &seq, &s, 1);
    ona__render_queue_push(&q, &(ona__draw_key){.texture = 2, .target = 9}, 0, &seq, &s, 1);
    ona__render_queue *queues[1] = {&q};
    ona__render_list list = {0};
    ck_assert_int_eq(ona__render_merge(queues, 1, &list), 0);
    ck_assert_uint_eq(list.pass_count, 2);
    ck_assert_uint_eq(list.passes[0], 9);
    ck_assert_uint_eq(list.passes[1], 5);
    ck_assert_uint_eq(list.sorted[0]->key.target, 9);
    ck_assert_uint_eq(list.sorted[1]->key.target, 5);
    ck_assert_uint_eq(list.sorted[2]->key.target, 0);
    /* A cycle: 9 also samples 5. The smaller id goes first. */
    ona__render_queue_push(&q, &(ona__draw_key){.texture = 5, .target = 9}, 0, &seq, &s, 1);
    ck_assert_int_eq(ona__render_merge(queues, 1, &list), 0);
    ck_assert_uint_eq(list.passes[0], 5);
    ck_assert_uint_eq(list.passes[1], 9);
    ona__render_list_free(&list);
    ona__render_queue_free(&q);
}
END_TEST

START_TEST(test_render_queue_clear_keeps_memory) {
    ona__render_queue q;
    ona__render_queue_init(&q);
    ona_sprite many[1000];
    for (int i = 0; i < 1000; i++)
        many[i] = sprite((float)i);
    uint32_t seq = 0;
    ck_assert_int_eq(
        ona__render_queue_push(&q, &(ona__draw_key){.layer = 0, .texture = 1}, 0, &seq, many, 1000),
        0);
    uint32_t cap = q.sprite_capacity;
    ona__render_queue_clear(&q);
    ck_assert_uint_eq(q.sprite_count, 0);
    /* A frame no bigger than before allocates nothing. */
    fault_alloc_begin(1, true);
    seq = 0;
    ck_assert_int_eq(
        ona__render_queue_push(&q, &(ona__draw_key){.layer = 0, .texture = 1}, 0, &seq, many, 1000),
        0);
    fault_alloc_end();
    ck_assert_uint_eq(q.sprite_capacity, cap);
    ona__render_queue_free(&q);
}
END_TEST

START_TEST(test_render_queue_out_of_memory_appends_nothing) {
    ona__render_queue q;
    ona__render_queue_init(&q);
    ona_sprite s = sprite(1);
    uint32_t seq = 0;
    fault_alloc_begin(1, true);
    ck_assert_int_eq(
        ona__render_queue_push(&q, &(ona__draw_key){.layer = 0, .texture = 1}, 0, &seq, &s, 1),
        ONA_ENOMEM);
    fault_alloc_end();
    ck_assert_uint_eq(q.sprite_count, 0);
    ck_assert_uint_eq(q.draw_count, 0);
    ck_assert_uint_eq(seq, 0);
    ona__render_queue_free(&q);
}
END_TEST

int main(void) {
    Suite *s = suite_create("render_queue");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_render_queue_extends_runs_of_one_system);
    tcase_add_test(tc, test_render_queue_merge_orders_by_layer_system_submission);
    tcase_add_test(tc, test_render_queue_settings_last_in_order_wins);
    tcase_add_test(tc, test_render_queue_canvas_passes_precede_their_use);
    tcase_add_test(tc, test_render_queue_clear_keeps_memory);
    tcase_add_test(tc, test_render_queue_out_of_memory_appends_nothing);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
